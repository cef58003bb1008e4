"""Which installed copies of transformers' exportable wrapper the cache-keeping rewrite can drive
(issue 44, item 2), read from the copy's own `integrations/executorch.py`, never from a table of
versions: the checked interpreter's copy (5.25.0, or 4.57.3 under `make test-transformers-older`),
and copies of that same file edited the ways a release could differ — an `.export` that takes
`past_key_values` where it took `cache_position`, or no `.export` at all. Such a copy gets no
rewrite, and the finding says why instead of staying silent.

What the two releases define (read by hand): `TorchExportableModuleForDecoderOnlyLM.export(input_ids,
inputs_embeds, cache_position, dynamic_shapes, strict)` in both; its inner module calls the model
with `past_key_values=` and `cache_position=` in 4.57.3 and with `cache=` in 5.25.0, which the
rewrite never writes. `TorchExportableModuleWithHybridCache` has no `.export` in either (the
decoder-only wrapper builds it for sliding-window configs and exports it through its own)."""

from __future__ import annotations

import re
from pathlib import Path

from exportlens.diagnosis.outputs import output_kind
from exportlens.discovery import discovery_of
from exportlens.document import Document
from exportlens.fixes import fixes_for
from tests.installed_transformers import installed

SCRIPT = """\
import torch
from transformers import LlamaConfig, LlamaForCausalLM

model = LlamaForCausalLM(LlamaConfig(num_hidden_layers=2)).eval()
ids = torch.randint(0, 128, (1, 8))
seq = torch.export.Dim("seq", max=32)
program = torch.export.export(model, (ids,), dynamic_shapes=({1: seq},))
"""
REFUSED = "Found <class 'transformers.cache_utils.DynamicCache'> in output, which is not a known type"
EXPORT = re.compile(r"(class TorchExportableModuleForDecoderOnlyLM\b.*?\n    def export\(.*?\) ->)", re.S)


def copy(tmp_path: Path, edit: str) -> Path:
    """The installed executorch.py with its decoder-only wrapper's `.export` edited, under a
    site-packages as a user's install is."""
    text = (installed()[1] / "integrations" / "executorch.py").read_text(encoding="utf-8")
    found = EXPORT.search(text)
    assert found is not None, "the installed copy's wrapper has an `.export(...)`"
    head = found[1]
    if edit == "past_key_values":
        changed = head.replace("cache_position:", "past_key_values:")
    else:  # no `.export`: renamed away
        changed = head.replace("def export(", "def _export_unused(")
    assert changed != head
    package = tmp_path / "site-packages" / "transformers"
    (package / "integrations").mkdir(parents=True)
    (package / "integrations" / "executorch.py").write_text(text.replace(head, changed), encoding="utf-8")
    return package


def finding(package: Path) -> tuple[dict[str, object], list[str]]:
    """The refusal's data as outputs.py words it for that copy, and the cache-keeping fixes offered."""
    frame = {"path": str(package / "models" / "llama" / "modeling_llama.py"), "line": 1, "name": "forward"}
    kind = output_kind({"message": REFUSED, "frames": [frame]})  # type: ignore[typeddict-item]
    assert kind is not None
    doc = Document("/fixes/export_llm.py", SCRIPT)
    (subject,) = discovery_of(doc).subjects
    line = subject.call.lineno - 1 if subject.call is not None else 0
    fixes = fixes_for(doc, "unflattenable-output", line, kind.fix, subject.name)
    return kind.fix, [f.title for f in fixes if f.kind == "cache-wrapper"]


def test_the_installed_copys_wrapper_takes_the_cache_position_and_gets_the_rewrite() -> None:
    data, titles = finding(installed()[1])
    wrapper = data["wrapper"]
    assert isinstance(wrapper, dict) and {"input_ids", "cache_position"} <= set(wrapper["export"])
    assert "past_key_values" not in wrapper["export"], wrapper
    assert len(titles) == 1 and "max_cache_len=32" in titles[0], titles
    assert "no rewrite is offered" not in str(data["hint"])


def test_an_export_taking_past_key_values_and_no_cache_position_gets_no_rewrite_and_says_why(
    tmp_path: Path,
) -> None:
    data, titles = finding(copy(tmp_path, "past_key_values"))
    assert titles == [], titles
    hint = str(data["hint"])
    assert (
        "no rewrite is offered: this copy's `TorchExportableModuleForDecoderOnlyLM.export(...)` takes "
        "`input_ids`, `inputs_embeds`, `past_key_values`, `dynamic_shapes`, `strict` and no `cache_position`"
    ) in hint, hint
    assert "decode step's next position" in hint and "cache_position=…" not in hint, hint
    assert hint.index("no rewrite is offered") < hint.index("`use_cache=False`"), hint


def test_a_wrapper_without_an_export_gets_no_rewrite_and_says_why(tmp_path: Path) -> None:
    data, titles = finding(copy(tmp_path, "none"))
    assert titles == [], titles
    assert "this copy's `TorchExportableModuleForDecoderOnlyLM` has no `.export(...)`" in str(data["hint"])
