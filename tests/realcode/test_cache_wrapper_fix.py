"""Issue 44, item 2: a causal LM's export refused on its `DynamicCache` gets a proven fix that keeps
the cache, the export call rewritten to the installed transformers' exportable wrapper
(fixes/cache_wrapper.py), proven by re-export and by its first decode step against eager generation
(worker/job/decode_proof.py). Real transformers (pinned) and torch, tiny configs, random weights,
nothing downloaded; through the CLI's `--fix`, then the fixed script run by the checked interpreter.

torch's verdict (torch 2.13.0, transformers 5.25.0, by hand): the fixed Llama script's program has
the static cache as buffers `key_cache_0` ... of `max_cache_len` positions, takes an 8-token prompt
and a one-token decode step at position 8, and its logits match `model.generate`'s to 6e-8.
The wrapper's export with a batch Dim fails on both torch 2.13 and 2.15 ("your code specialized it
to be a constant (2)"); with the seq Dim's `min=2` it exports (range [2, 31]) and the one-token step
runs, with `min=4` the step fails ("Guard failed: input_ids.size()[1] >= 4"). Also run on
transformers 4.57.3 (`make test-transformers-older`).
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from tests.cli.test_cli import run_cli
from tests.conftest import WORKER_PYTHON
from tests.realcode.test_transformers_cache import EXPORT, followed

pytestmark = pytest.mark.slow

# Appended to the fixed script: torch's own program, called as generation calls it, against eager
# generation; prints what the program holds for the cache (its buffers, by torch's signature).
RUN = """
from torch.export.graph_signature import InputKind

shapes = {n.name: tuple(n.meta["val"].shape) for n in program.graph.nodes if n.op == "placeholder"}
specs = program.graph_signature.input_specs
named = {s.target: shapes[s.arg.name] for s in specs if s.kind == InputKind.BUFFER}
print("cache", named.get("key_cache_0"))
step = program.module()
with torch.no_grad():
    want = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=2, min_new_tokens=2,
                          do_sample=False, output_logits=True, return_dict_in_generate=True)
    prefill = step(input_ids=ids, cache_position=torch.arange(ids.shape[1]))
    token = want.sequences[:, ids.shape[1]:ids.shape[1] + 1]
    decoded = step(input_ids=token, cache_position=torch.tensor([ids.shape[1]]))
assert torch.allclose(prefill[:, -1], want.logits[0], atol=1e-5)
assert torch.allclose(decoded[:, -1], want.logits[1], atol=1e-5)
print("prefill and decode match generate")
"""

GPT2 = """\
import torch
from transformers import GPT2Config, GPT2LMHeadModel

config = GPT2Config(n_layer=2, n_embd=32, n_head=2, vocab_size=100, n_positions=48)
model = GPT2LMHeadModel(config).eval()
ids = torch.randint(0, 100, (1, 6))
program = torch.export.export(model, (ids,))
"""


def _finding(out_stdout: str) -> dict[str, object]:
    (entry,) = json.loads(out_stdout)["files"]
    (finding,) = [d for d in entry["diagnostics"] if d["severity"] == "error"]
    return dict(finding)


def test_the_llama_export_is_fixed_to_the_wrapper_and_exports_prefill_and_decode(tmp_path: Path) -> None:
    script = tmp_path / "export_llama.py"
    script.write_text(EXPORT)
    fixed = run_cli("export_llama.py", "--no-cache", "--fix", cwd=tmp_path, python=WORKER_PYTHON)
    said = fixed.stdout + fixed.stderr
    assert "export_llama.py: fixed: Export with a static cache through transformers'" in fixed.stderr, said
    assert "decode step at cache position 8 match eager generation's logits" in fixed.stderr, said
    assert fixed.returncode == 0 and "0 error(s)" in fixed.stdout, said  # the re-check: clean
    text = script.read_text()
    ast.parse(text)
    assert 'model.generation_config.cache_implementation = "static"' in text, text
    # max_cache_len is the user's Dim's max; the sequence Dim below it, on the ids and the positions
    assert "TorchExportableModuleForDecoderOnlyLM(model, batch_size=ids.shape[0], max_cache_len=32)" in text
    assert 'Dim("seq_cached", min=2, max=31)' in text and '"cache_position": {0: seq_cached}' in text, text
    assert "torch.export.export(" not in text, text
    followed(text + RUN, tmp_path, "cache (1, 2, 32, 8)\nprefill and decode match generate")


def test_a_batch_dim_is_said_fixed_and_the_seq_dims_min_kept(tmp_path: Path) -> None:
    """A batch of 2 declared dynamic: the wrapper's static cache holds 2 sequences, torch refuses
    the batch Dim on it, so the fix says the batch is fixed; the seq Dim's min=2 stays, and the
    proof's decode step (one token through that Dim) still runs."""
    script = tmp_path / "export_llama.py"
    script.write_text(
        EXPORT.replace("(1, 8))", "(2, 8))")
        .replace(
            'seq = torch.export.Dim("seq"',
            'batch = torch.export.Dim("batch", max=4)\nseq = torch.export.Dim("seq"',
        )
        .replace("({1: seq},)", "({0: batch, 1: seq},)")
    )
    fixed = run_cli("export_llama.py", "--no-cache", "--fix", cwd=tmp_path, python=WORKER_PYTHON)
    said = fixed.stdout + fixed.stderr
    assert "its min=2 kept; the batch is not dynamic: a static cache is sized for the example's batch" in said
    assert "so `batch` is dropped" in fixed.stderr, said
    assert "decode step at cache position 8 match eager generation's logits" in fixed.stderr, said
    assert fixed.returncode == 0 and "0 error(s)" in fixed.stdout, said
    text = script.read_text()
    assert 'Dim("seq_cached", min=2, max=31)' in text, text
    assert "# the static cache holds ids.shape[0] sequences: the batch is fixed" in text, text
    followed(text + RUN, tmp_path, "cache (2, 2, 32, 8)\nprefill and decode match generate")


def test_gpt2_without_a_dim_takes_max_cache_len_from_its_config(tmp_path: Path) -> None:
    script = tmp_path / "export_gpt2.py"
    script.write_text(GPT2)
    fixed = run_cli("export_gpt2.py", "--no-cache", "--fix", cwd=tmp_path, python=WORKER_PYTHON)
    said = fixed.stdout + fixed.stderr
    assert "max_cache_len from the config's `max_position_embeddings`" in fixed.stderr, said
    assert "decode step at cache position 6 match eager generation's logits" in fixed.stderr, said
    assert fixed.returncode == 0 and "0 error(s)" in fixed.stdout, said
    text = script.read_text()
    assert "cache_len = model.config.max_position_embeddings\n" in text, text  # GPT-2's n_positions
    assert 'Dim("seq_cached", max=cache_len - 1)' in text, text
    followed(text + RUN, tmp_path, "cache (1, 2, 48, 16)\nprefill and decode match generate")


def test_a_cache_with_no_room_for_the_prompt_gets_no_fix_and_the_advice_stays(tmp_path: Path) -> None:
    """A Dim up to the prompt's own length: the wrapper's cache would hold no next token, the
    rewrite's Dim is below the example's length, its export refuses: no fix is offered or said."""
    script = tmp_path / "export_llama.py"
    script.write_text(EXPORT.replace('Dim("seq", min=2, max=32)', 'Dim("seq", min=2, max=8)'))
    out = run_cli("export_llama.py", "--no-cache", "--format", "json", cwd=tmp_path, python=WORKER_PYTHON)
    finding = _finding(out.stdout)
    assert finding["code"] == "unflattenable-output"
    proof = finding.get("proof") or {}
    assert isinstance(proof, dict) and proof.get("fix") is None, proof
    assert any("static cache" in r and "does not export" in r for r in proof.get("refused", [])), proof
    assert "TorchExportableModuleForDecoderOnlyLM(model, batch_size=…" in str(finding["message"])
