"""The decode step of a tiny Llama exported with its cache (issue 44 item 3): real transformers
(pinned), real torch, a config with random weights, nothing downloaded.

The export is transformers' own: `TorchExportableModuleWithStaticCache` called with `input_ids` and
`cache_position` as `transformers.integrations.executorch.convert_and_export_with_cache` calls it, and
generation then feeds that program one token at the next cache position (the wrapper's `generate`).
torch's verdict (torch 2.13.0, transformers 5.25.0 and 4.57.3, by hand): all three prefills below export; with
`max_cache_len=8` and an 8-token prompt the decode step raises `index_copy_(): index 8 is out of bounds
for dimension 2 with size 8` in `transformers/cache_utils.py` (called from `modeling_llama.py`); a
static prefill's program refuses one token (`Guard failed: input_ids.size()[1] == 8`); with room in
the cache and a Dim for the sequence, the decode step runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_cli import run_cli
from tests.conftest import WORKER_PYTHON, line_of

pytestmark = pytest.mark.slow

LLAMA_MODEL = """\
import torch
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.integrations.executorch import TorchExportableModuleWithStaticCache

config = LlamaConfig(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                     num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
model = LlamaForCausalLM(config).eval()
"""
GPT2_MODEL = """\
import torch
from transformers import GPT2Config, GPT2LMHeadModel
from transformers.integrations.executorch import TorchExportableModuleWithStaticCache

config = GPT2Config(vocab_size=128, n_positions=64, n_embd=32, n_layer=2, n_head=2)
model = GPT2LMHeadModel(config).eval()
"""
WRAPPED = """\
model.generation_config.cache_implementation = "static"
ids = torch.randint(0, 128, (1, 8))
wrapper = TorchExportableModuleWithStaticCache(model, batch_size=1, max_cache_len={cache})
"""
LLAMA = LLAMA_MODEL + WRAPPED
DYNAMIC = """\
seq = torch.export.Dim("seq", max={longest})
program = torch.export.export(wrapper, (), {{"input_ids": ids, "cache_position": torch.arange(8)}},
                              dynamic_shapes={{"input_ids": {{1: seq}}, "cache_position": {{0: seq}}}})
"""
STATIC = 'program = torch.export.export(wrapper, (), {"input_ids": ids, "cache_position": torch.arange(8)})\n'


def _check(tmp_path: Path, script: str) -> tuple[list[dict[str, object]], str]:
    """The diagnostics, and the output with every module's status (`modules` of the JSON)."""
    (tmp_path / "export_llama.py").write_text(script)
    out = run_cli("export_llama.py", "--no-cache", "--format", "json", cwd=tmp_path, python=WORKER_PYTHON)
    (entry,) = json.loads(out.stdout)["files"]
    statuses = " ".join(f"{m.get('class', m['name'])}={m['status']}" for m in entry["modules"])
    return entry["diagnostics"], f"{statuses}\n{out.stdout}{out.stderr}"


@pytest.mark.parametrize(("model", "modeling"), [(LLAMA_MODEL, "llama"), (GPT2_MODEL, "gpt2")])
def test_a_cache_with_no_room_for_the_next_token_refuses_the_decode_step(
    tmp_path: Path, model: str, modeling: str
) -> None:
    found, output = _check(tmp_path, model + WRAPPED.format(cache=8) + DYNAMIC.format(longest=8))
    (finding,) = [d for d in found if d["severity"] == "error"]
    assert finding["code"] == "decode-step-refused", output
    assert finding["range"]["start"]["line"] == line_of(  # type: ignore[index]
        str(tmp_path / "export_llama.py"), "torch.export.export("
    )
    message = str(finding["message"])
    assert "the prefill exports" in message and "decode step" in message, message
    assert "cache position 8" in message and "out of bounds" in message, message
    assert "`max_cache_len`" in message, message
    related = [str(r["path"]) for r in finding["related"]]  # type: ignore[attr-defined]
    assert any(p.endswith("transformers/cache_utils.py") for p in related), related
    assert any(p.endswith(f"models/{modeling}/modeling_{modeling}.py") for p in related), related


def test_a_prefill_exported_at_the_prompts_length_refuses_one_token(tmp_path: Path) -> None:
    found, output = _check(tmp_path, LLAMA.format(cache=32) + STATIC)
    (finding,) = [d for d in found if d["severity"] == "error"]
    assert finding["code"] == "decode-step-refused", output
    message = str(finding["message"])
    assert "Guard failed: input_ids.size()[1] == 8" in message, message
    assert "model takes that step when run eagerly" in message and 'Dim("seq"' in message, message
    assert finding["related"] == [], "no model line decided it: the program's shapes did"


def test_the_advised_dim_and_a_cache_with_room_pass_both_steps(tmp_path: Path) -> None:
    """What both messages advise, followed: the decode step runs, nothing is said."""
    found, output = _check(tmp_path, LLAMA.format(cache=32) + DYNAMIC.format(longest=31))
    assert [d for d in found if d["severity"] in ("error", "warning")] == [], output
    assert output.startswith("TorchExportableModuleWithStaticCache=exported\n"), output


def test_a_prefill_that_refuses_says_it_is_the_prefill(tmp_path: Path) -> None:
    """The model itself, fed a `cache_position`: its `DynamicCache` output refuses the prefill."""
    script = LLAMA_MODEL + (
        "ids = torch.randint(0, 128, (1, 8))\n"
        'program = torch.export.export(model, (), {"input_ids": ids, "cache_position": torch.arange(8)})\n'
    )
    found, output = _check(tmp_path, script)
    (finding,) = [d for d in found if d["severity"] == "error"]
    assert finding["code"] == "unflattenable-output", output
    assert "Refused at the prefill (8 tokens with their `cache_position`)" in str(finding["message"])


def test_the_decode_step_puts_the_cache_back(tmp_path: Path) -> None:
    """Both runs of the step write the static cache; the passes after it see the prefill's state."""
    import torch

    from exportlens.worker.core.attempt import Attempt
    from exportlens.worker.core.budget import Budget
    from exportlens.worker.job.decode_step import decode_step

    made: dict[str, object] = {}
    exec(LLAMA.format(cache=8), made)  # the test's own script
    wrapper = made["wrapper"]
    assert isinstance(wrapper, torch.nn.Module)
    ids = made["ids"]
    attempt = Attempt(wrapper, (), {"input_ids": ids, "cache_position": torch.arange(8)})
    program = attempt.export(strict=False)
    before = {name: b.clone() for name, b in wrapper.named_buffers()}
    started: list[bool] = []
    step = decode_step(program, attempt, Budget(120.0), lambda: started.append(True))
    assert started and step is not None and step["eager"] == "fails" and step["position"] == 8
    assert all(torch.equal(before[name], b) for name, b in wrapper.named_buffers())


def test_the_wrappers_own_export_is_checked_prefill_and_decode(tmp_path: Path) -> None:
    """`TorchExportableModuleForDecoderOnlyLM(...).export(input_ids=...)` as transformers documents it:
    the job exports what the method exports; a static 8-token prefill refuses the decode step."""
    wrapped = LLAMA_MODEL + (
        "from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM\n\n"
        'model.generation_config.cache_implementation = "static"\n'
        "ids = torch.randint(0, 128, (1, 8))\n"
        "wrapper = TorchExportableModuleForDecoderOnlyLM(model, batch_size=1, max_cache_len=32)\n"
    )
    found, output = _check(tmp_path, wrapped + "program = wrapper.export(input_ids=ids)\n")
    (finding,) = [d for d in found if d["severity"] == "error"]
    assert finding["code"] == "decode-step-refused", output
    assert finding["range"]["start"]["line"] == line_of(  # type: ignore[index]
        str(tmp_path / "export_llama.py"), "wrapper.export("
    )
    assert "Guard failed: input_ids.size()[1] == 8" in str(finding["message"]), finding["message"]
    dim = (
        'seq = torch.export.Dim("seq", max=31)\n'
        "program = wrapper.export(input_ids=ids, cache_position=torch.arange(8),\n"
        '                         dynamic_shapes={"input_ids": {1: seq}, "cache_position": {0: seq}})\n'
    )
    found, output = _check(tmp_path, wrapped + dim)
    assert [d for d in found if d["severity"] in ("error", "warning")] == [], output
    assert output.startswith("TorchExportableModuleWithStaticCache=exported\n"), output  # checked, not missed


def test_another_objects_export_with_input_ids_is_not_the_wrappers(tmp_path: Path) -> None:
    """In a file that uses the wrapper, a tokenizer-side helper's `.export(input_ids=...)` is not
    transformers' export: only the wrapper's call is checked, and it exports clean."""
    script = LLAMA_MODEL + (
        "from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM\n\n"
        "class Saver:\n"
        "    def export(self, input_ids):\n"
        "        return input_ids.tolist()\n\n"
        'model.generation_config.cache_implementation = "static"\n'
        "ids = torch.randint(0, 128, (1, 8))\n"
        "saved = Saver().export(input_ids=ids)\n"
        "saver = Saver()\n"
        "saver.export(input_ids=ids)\n"
        "wrapper = TorchExportableModuleForDecoderOnlyLM(model, batch_size=1, max_cache_len=32)\n"
        'seq = torch.export.Dim("seq", max=31)\n'
        "program = wrapper.export(input_ids=ids, cache_position=torch.arange(8),\n"
        '                         dynamic_shapes={"input_ids": {1: seq}, "cache_position": {0: seq}})\n'
    )
    found, output = _check(tmp_path, script)
    assert found == [], output  # once: Saver's call checked as the wrapper's, an `inputs-error`
    assert output.startswith("TorchExportableModuleWithStaticCache=exported\n"), output  # alone


def test_convert_and_export_with_cache_is_checked_as_the_library_exports(tmp_path: Path) -> None:
    """transformers' `convert_and_export_with_cache(model, ids, positions)`: the child exports the
    wrapper the function builds; here both the program's shapes and the cache's size refuse."""
    script = LLAMA_MODEL + (
        "from transformers.integrations.executorch import convert_and_export_with_cache\n\n"
        'model.generation_config.cache_implementation = "static"\n'
        'model.generation_config.cache_config = {"batch_size": 1, "max_cache_len": 8}\n'
        "ids = torch.randint(0, 128, (1, 8))\n"
        "program = convert_and_export_with_cache(model, ids, torch.arange(8))\n"
    )
    found, output = _check(tmp_path, script)
    (finding,) = [d for d in found if d["severity"] == "error"]
    assert finding["code"] == "decode-step-refused", output
    assert output.startswith("TorchExportableModuleWithStaticCache=exported\n"), output
    message = str(finding["message"])
    assert "Guard failed: input_ids.size()[1] == 8" in message and "index 8 is out of bounds" in message
    assert "`max_cache_len`" in message and 'Dim("seq"' in message, message
    related = [str(r["path"]) for r in finding["related"]]  # type: ignore[attr-defined]
    assert any(p.endswith("models/llama/modeling_llama.py") for p in related), related
