"""A Hugging Face causal LM exported as people write it (issue 44): real transformers (pinned), real
torch, a tiny Llama from a config, random weights, nothing downloaded.

torch's verdict (torch 2.13.0, transformers 5.25.0 and 4.57.3, by hand): `torch.export.export(model, (ids,),
dynamic_shapes=...)` raises "Found <class 'transformers.cache_utils.DynamicCache'> in output,
which is not a known type"; the installed library's `TorchExportableModuleForDecoderOnlyLM` with
`generation_config.cache_implementation = "static"` exports. The finding's advice is read from the
installed transformers' own `integrations/executorch.py`, and what it advises exports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from exportlens.diagnosis.library_export import cache_advice, recipes
from tests.cli.test_cli import run_cli
from tests.conftest import WORKER_PYTHON, line_of
from tests.installed_transformers import installed

pytestmark = pytest.mark.slow

CONFIG = """\
import torch
from transformers import LlamaConfig, LlamaForCausalLM

config = LlamaConfig(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                     num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
model = LlamaForCausalLM(config).eval()
ids = torch.randint(0, 128, (1, 8))
"""
EXPORT = (
    CONFIG
    + """\
seq = torch.export.Dim("seq", min=2, max=32)
program = torch.export.export(model, (ids,), dynamic_shapes=({1: seq},))
"""
)
# the advice, followed as written
ADVISED = (
    CONFIG
    + """\
from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM

model.generation_config.cache_implementation = "static"
wrapper = TorchExportableModuleForDecoderOnlyLM(model, batch_size=1, max_cache_len=32)
seq = torch.export.Dim("seq", max=31)
program = wrapper.export(input_ids=ids, cache_position=torch.arange(8),
                         dynamic_shapes={"input_ids": {1: seq}, "cache_position": {0: seq}})
program.module()(input_ids=ids[:, -1:], cache_position=torch.tensor([8]))  # the decode step runs
print("exported", type(program).__name__)
"""
)


def followed(script: str, folder: Path, says: str) -> None:
    """The advice followed as written, run by the checked interpreter: it must print `says`."""
    (folder / "advised.py").write_text(script)
    done = subprocess.run(
        [WORKER_PYTHON or sys.executable, "advised.py"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0 and says in done.stdout, done.stderr[-2000:]


def test_the_cache_finding_names_what_the_installed_transformers_offers(tmp_path: Path) -> None:
    (tmp_path / "export_llama.py").write_text(EXPORT)
    out = run_cli("export_llama.py", "--no-cache", "--format", "json", cwd=tmp_path, python=WORKER_PYTHON)
    assert out.returncode == 1, out.stdout + out.stderr
    (entry,) = json.loads(out.stdout)["files"]
    (finding,) = [d for d in entry["diagnostics"] if d["severity"] == "error"]
    assert finding["code"] == "unflattenable-output"
    assert finding["range"]["start"]["line"] == line_of(
        str(tmp_path / "export_llama.py"), "torch.export.export("
    )
    message = finding["message"]
    wrapper = message.index("`transformers.integrations.executorch.TorchExportableModuleForDecoderOnlyLM(")
    assert 'cache_implementation = "static"' in message and "max_cache_len=" in message, message
    assert "dynamic_shapes=" in message and "decode step" in message, message
    assert "export_with_dynamic_cache" in message, message
    assert message.index("`use_cache=False`") > wrapper, "use_cache=False only as the last choice"
    assert "register_dataclass" not in message, "the library's class is not the user's to register"
    assert any("modeling_llama.py" in r["path"] for r in finding["related"]), finding["related"]


def test_what_is_advised_exports_with_the_cache(tmp_path: Path) -> None:
    followed(ADVISED, tmp_path, "exported ExportedProgram")


def test_the_recipes_are_read_from_the_installed_file() -> None:
    """The checked interpreter's transformers (5.25.0, or `make test-transformers-older`'s 4.57.3)."""
    _, package = installed()
    found = recipes(str(package))
    assert found is not None and found.wrapper == "TorchExportableModuleForDecoderOnlyLM"
    assert {"batch_size", "max_cache_len"} <= set(found.wrapper_arguments)
    assert ("cache_implementation", '"static"') in found.requires
    assert recipes(str(package.parent / "none-such")) is None  # a transformers without the integration
    assert cache_advice(None, None).startswith("last, `use_cache=False`")


T5 = """\
import torch
from transformers import T5Config, T5ForConditionalGeneration

config = T5Config(num_layers=2, d_model=32, num_heads=2, d_ff=64, d_kv=16, vocab_size=100,
                  decoder_start_token_id=0)
model = T5ForConditionalGeneration(config).eval()
ids = torch.randint(0, 100, (1, 8))
"""
T5_EXPORT = T5 + "program = torch.export.export(model, (ids,), {'decoder_input_ids': ids[:, :4]})\n"
# the advice for an encoder-decoder, followed as written
T5_ADVISED = (
    T5
    + """\
from transformers.integrations.executorch import Seq2SeqLMExportableModule

wrapper = Seq2SeqLMExportableModule(model, batch_size=1, max_hidden_seq_length=64, max_cache_length=16)
wrapper.export(ids)
print("exported", type(wrapper.exported_encoder).__name__, type(wrapper.exported_decoder).__name__)
"""
)


def test_an_encoder_decoder_gets_the_seq2seq_wrapper_and_it_exports(tmp_path: Path) -> None:
    """T5 returns an `EncoderDecoderCache`: the advice is the installed library's seq2seq wrapper (the
    decoder-only one refuses an encoder-decoder), and that wrapper, followed as written, exports."""
    (tmp_path / "export_t5.py").write_text(T5_EXPORT)
    out = run_cli("export_t5.py", "--no-cache", "--format", "json", cwd=tmp_path, python=WORKER_PYTHON)
    (entry,) = json.loads(out.stdout)["files"]
    (finding,) = [d for d in entry["diagnostics"] if d["severity"] == "error"]
    message = finding["message"]
    assert "EncoderDecoderCache" in message and "Seq2SeqLMExportableModule(model, batch_size=" in message
    assert "TorchExportableModuleForDecoderOnlyLM" not in message, message
    assert any("modeling_t5.py" in r["path"] for r in finding["related"]), finding["related"]
    followed(T5_ADVISED, tmp_path, "exported ExportedProgram ExportedProgram")
