"""The cache-keeping rewrite's text (fixes/cache_wrapper.py), without torch: which export calls get
it, what it writes from the finding's data (the installed wrapper as diagnosis/library_export.py
read it), and which calls it leaves alone so that only the advice stays. Its proof, through the real
worker: tests/realcode/test_cache_wrapper_fix.py."""

from __future__ import annotations

import ast
from typing import Any

from exportlens.discovery import discovery_of
from exportlens.document import Document
from exportlens.fixes import Fix, fixes_for

HEAD = """\
import torch
from transformers import LlamaConfig, LlamaForCausalLM

config = LlamaConfig(num_hidden_layers=2)
model = LlamaForCausalLM(config).eval()
ids = torch.randint(0, 128, (1, 8))
"""
# what transformers 5.25.0's integrations/executorch.py defines (library_export.recipes reads it)
WRAPPER = {
    "name": "TorchExportableModuleForDecoderOnlyLM",
    "arguments": ["batch_size", "max_cache_len"],
    "export": ["input_ids", "inputs_embeds", "cache_position", "dynamic_shapes", "strict"],
    "requires": [["use_cache", "True"], ["cache_implementation", '"static"']],
}


def data(**wrapper: Any) -> dict[str, Any]:
    return {
        "type": "transformers.cache_utils.DynamicCache",
        "class": "DynamicCache",
        "library": "transformers",
        "wrapper": {**WRAPPER, **wrapper},
    }


def rewrites(text: str, found: dict[str, Any] | None = None) -> list[Fix]:
    doc = Document("/fixes/export_llm.py", text)
    (subject,) = discovery_of(doc).subjects
    line = subject.call.lineno - 1 if subject.call is not None else 0
    fixes = fixes_for(doc, "unflattenable-output", line, found or data(), subject.name)
    return [f for f in fixes if f.kind == "cache-wrapper"]


def proposed(text: str, found: dict[str, Any] | None = None) -> str:
    (fix,) = rewrites(text, found)
    assert fix.disabled is None and fix.verify == {"compare": "self", "decode": True}
    assert fix.candidate is not None
    ast.parse(fix.candidate.text)
    return fix.candidate.text


def test_the_dims_max_is_the_cache_length_and_one_dim_below_it_serves_prefill_and_decode() -> None:
    text = proposed(
        HEAD
        + 'seq = torch.export.Dim("seq", min=2, max=32)\n'
        + "program = torch.export.export(model, (ids,), dynamic_shapes=({1: seq},))\n"
    )
    assert (
        text.count("from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM")
        == 1
    )
    tail = text.split('seq = torch.export.Dim("seq", min=2, max=32)\n')[1]
    assert tail == (
        'model.generation_config.cache_implementation = "static"\n'
        "exportable = TorchExportableModuleForDecoderOnlyLM("
        "model, batch_size=ids.shape[0], max_cache_len=32)\n"
        'seq_cached = torch.export.Dim("seq_cached", min=2, max=31)  # the prompt and each next token\n'
        "program = exportable.export(\n"
        "    input_ids=ids,\n"
        "    cache_position=torch.arange(ids.shape[1]),\n"
        '    dynamic_shapes={"input_ids": {1: seq_cached}, "cache_position": {0: seq_cached}},\n'
        ")\n"
    ), tail
    (fix,) = rewrites(
        HEAD
        + 'seq = torch.export.Dim("seq", min=2, max=32)\n'
        + "program = torch.export.export(model, (ids,), dynamic_shapes=({1: seq},))\n"
    )
    assert fix.title.endswith("(max_cache_len=32, the sequence Dim's max; its min=2 kept)"), fix.title
    assert "batch" not in fix.title, fix.title  # the user's batch was static: nothing to say


def test_a_batch_dim_is_said_to_be_fixed_by_the_static_cache_not_silently_dropped() -> None:
    for declared in ("batch", "torch.export.Dim.AUTO", "torch.export.Dim('b', max=4)"):
        source = (
            HEAD
            + 'batch = torch.export.Dim("batch", max=4)\nseq = torch.export.Dim("seq", max=32)\n'
            + f"program = torch.export.export(model, (ids,), dynamic_shapes=({{0: {declared}, 1: seq}},))\n"
        )
        (fix,) = rewrites(source)
        assert (
            "the batch is not dynamic: a static cache is sized for the example's batch (`ids.shape[0]`), "
            f"so `{declared}` is dropped"
        ) in fix.title, fix.title
        text = proposed(source)
        assert "# the static cache holds ids.shape[0] sequences: the batch is fixed\n" in text, text
        assert '{"input_ids": {1: seq_cached}, "cache_position": {0: seq_cached}}' in text, text
    for static in ("None", "torch.export.Dim.STATIC"):
        (fix,) = rewrites(
            HEAD
            + 'seq = torch.export.Dim("seq", max=32)\n'
            + f"program = torch.export.export(model, (ids,), dynamic_shapes=({{0: {static}, 1: seq}},))\n"
        )
        assert "batch" not in fix.title, (static, fix.title)


def test_a_min_the_one_token_decode_step_would_break_is_dropped_and_said() -> None:
    """torch checks no lower bound of 2 or less at run time; `min=4` would refuse the decode step."""
    source = (
        HEAD
        + "s = torch.export.Dim('s', min=4, max=32)\n"
        + "program = torch.export.export(model, (ids,), dynamic_shapes=({1: s},))\n"
    )
    (fix,) = rewrites(source)
    assert "its min=4 dropped: the one-token decode step goes through the same Dim" in fix.title, fix.title
    assert 'Dim("seq_cached", max=31)' in proposed(source)
    text = proposed(
        HEAD
        + "s = torch.export.Dim('s', min=1, max=32)\n"
        + "program = torch.export.export(model, (ids,), dynamic_shapes=({1: s},))\n"
    )
    assert 'Dim("seq_cached", min=1, max=31)' in text, text


def test_without_a_dim_the_config_bounds_the_cache_and_expressions_are_bound_once() -> None:
    source = """\
import torch
from transformers import LlamaConfig, LlamaForCausalLM


def main():
    config = LlamaConfig(num_hidden_layers=2)
    return torch.export.export(LlamaForCausalLM(config).eval(), (torch.randint(0, 128, (2, 8)),), strict=True)


if __name__ == "__main__":
    main()
"""
    text = proposed(source)
    body = text.split("def main():\n")[1]
    assert "    lm = LlamaForCausalLM(config).eval()\n    input_ids = torch.randint(0, 128, (2, 8))\n" in body
    assert "    cache_len = lm.config.max_position_embeddings\n" in body, body
    assert 'lm.generation_config.cache_implementation = "static"' in body
    assert "batch_size=input_ids.shape[0], max_cache_len=cache_len)" in body
    assert 'Dim("seq_cached", max=cache_len - 1)' in body
    assert "    return exportable.export(\n        input_ids=input_ids," in body
    assert "        strict=True,\n    )\n" in body, body  # the user's tracer, kept


def test_the_installed_copys_own_argument_names_are_used() -> None:
    """A copy whose constructor says `max_batch_size` (transformers 4.5x did) gets that name."""
    text = proposed(
        HEAD + "program = torch.export.export(model, (ids,))\n",
        data(arguments=["max_batch_size", "max_cache_len"]),
    )
    assert "max_batch_size=ids.shape[0]" in text and "batch_size=ids" not in text.replace("max_batch", "")


def test_ids_given_by_keyword_are_the_wrappers_input_ids() -> None:
    text = proposed(
        HEAD
        + "seq = torch.export.Dim('seq', max=16)\n"
        + "program = torch.export.export(\n"
        + "    model, (), {'input_ids': ids}, dynamic_shapes={'input_ids': {1: seq}}\n"
        + ")\n"
    )
    assert "max_cache_len=16)" in text and "    input_ids=ids,\n" in text, text


def test_calls_and_copies_the_wrapper_cannot_take_get_no_rewrite() -> None:
    static = HEAD + "program = torch.export.export(model, (ids,))\n"
    for source, found in (
        # the wrapper feeds the token ids and the cache position only
        (HEAD + "program = torch.export.export(model, (ids,), {'attention_mask': ids})\n", None),
        (HEAD + "program = torch.export.export(model, (ids, ids))\n", None),
        (
            HEAD + "program = torch.export.export(model, (), {'input_ids': ids, 'attention_mask': ids})\n",
            None,
        ),
        (HEAD + "program = torch.export.export(model, examples)\n", None),
        # a copy whose wrapper takes no max_cache_len, or whose export takes no cache position
        (static, data(arguments=["batch_size"])),
        (static, data(export=["input_ids", "dynamic_shapes"])),
        # an encoder-decoder's cache (outputs.py gives it no decoder-only wrapper)
        (static, {"class": "EncoderDecoderCache", "library": "transformers"}),
        # a model's own class (the register-dataclass fix's)
        (static, {"class": "Out"}),
    ):
        assert rewrites(source, found) == [], source
