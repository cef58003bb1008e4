"""Graph breaks of the real-code corpus's compile cases through the real server (issue 31): each
case's model file opened in the editor, compiled by the case's script beside it (check/sites.py),
gets torch's break on its line (tests/compile/test_compile_realcode.py has torch's own verdict);
a break kind with a fix gets it only proven (through the script's call, fixes/proof.py), and
applying it and saving removes that warning. The case is copied into the server's workspace."""

from __future__ import annotations

import shutil

from lsprotocol import types

from tests.compile.test_compile_realcode import CORPUS, TORCH_SAYS
from tests.fixes.conftest import actions, apply_edit, pick, proven, resolve, saved
from tests.lsp.conftest import Session

BREAK = "compile-graph-break"


async def opened(server: Session, case: str, script: str, keep: tuple[str, ...] = ()) -> tuple[str, str, int]:
    """The case's model file (and `keep`, the files it needs) with `script` in a folder of the
    workspace, the model file opened: (its uri, its text, the 0-based line of torch's break)."""
    model, line, _ = TORCH_SAYS[case, script]
    folder = server.root / f"realcode_{case}"
    folder.mkdir(exist_ok=True)
    for name in (model, script, *keep):
        shutil.copy(CORPUS / case / name, folder / name)
    uri, text = server.write(f"realcode_{case}/{model}", (CORPUS / case / model).read_text())
    found = await server.open_uri(uri, text)
    assert [(d.code, d.range.start.line) for d in found] == [(BREAK, line - 1)], [d.message for d in found]
    assert found[0].severity == types.DiagnosticSeverity.Warning
    return uri, text, line - 1


async def test_transformers_logger_in_forward_is_run_only_when_not_compiling(server: Session) -> None:
    uri, text, line = await opened(server, "gpt2_hf", "train_gpt2_hf.py", ("hf_logging.py",))
    guard = pick(await proven(server, uri, line), "Run `logger.warning_once(")
    assert guard.title.endswith("only when not compiling (no graph break there; matches eager)"), guard.title
    new = apply_edit(text, (await resolve(server, guard)).edit, uri, 1)
    assert "if not torch.compiler.is_compiling():\n                    logger.warning_once(" in new
    assert await saved(server, uri, "realcode_gpt2_hf/modeling_gpt2.py", new) == []


async def test_fairseqs_padding_branch_is_rewritten_without_a_break(server: Session) -> None:
    uri, text, line = await opened(server, "fairseq_encoder", "compile_fairseq_encoder.py")
    found = await proven(server, uri, line)
    rewrite = next(a for a in found if a.is_preferred)
    assert rewrite.title.endswith("(no graph break there; matches eager on both branches)"), rewrite.title
    new = apply_edit(text, (await resolve(server, rewrite)).edit, uri, 1)
    assert await saved(server, uri, "realcode_fairseq_encoder/transformer_encoder.py", new) == []


async def test_torchaudios_item_is_captured_in_the_graph(server: Session) -> None:
    uri, text, line = await opened(server, "conformer", "compile_conformer.py")
    fix = pick(await proven(server, uri, line), "Capture `.item()` in the graph")
    assert fix.title.endswith("(no graph break there; matches eager)") and fix.is_preferred, fix.title
    new = apply_edit(text, (await resolve(server, fix)).edit, uri, 1)
    after = await saved(server, uri, "realcode_conformer/conformer.py", new)
    assert [d for d in after if d.range.start.line == line + 1] == []  # the fix wrote one line above


async def test_mocos_int_of_a_buffer_is_captured_in_the_graph(server: Session) -> None:
    """`int(self.queue_ptr)` is torch's `.item()` break with no `.item()` on the line: the same knob,
    proven through the training script (no break there; the queue and logits match eager)."""
    uri, text, line = await opened(server, "moco", "train_moco.py")
    fix = pick(await proven(server, uri, line), "Capture `.item()` in the graph")
    assert fix.title.endswith("(no graph break there; matches eager)"), fix.title
    new = apply_edit(text, (await resolve(server, fix)).edit, uri, 1)
    assert await saved(server, uri, "realcode_moco/builder.py", new) == []


async def test_detrs_deepcopy_has_no_fix_to_offer(server: Session) -> None:
    uri, _, line = await opened(server, "deformable_detr", "train_deformable_detr.py")
    titles = [a.title for a in await actions(server, uri, line)]
    assert titles == ["Ignore `compile-graph-break` on this line"], titles


async def test_a_break_inside_transformers_is_fixed_in_the_users_file_by_torchs_own_knob(
    server: Session,
) -> None:
    """The HF fine-tune step (tests/compile/test_compile_training.py): transformers' `warning_once`
    breaks the graph inside the library, on the script's call of the compiled model. torch's hint,
    `ignore_logging_functions`, set in the script, is proven (no break at the library's line any
    more; matches eager) before it is offered; applied and saved, the script has no finding."""
    name = "realcode_hf_bert/train_bert_hf.py"
    (server.root / "realcode_hf_bert").mkdir(exist_ok=True)
    uri, text = server.write(name, (CORPUS / "hf_bert" / "train_bert_hf.py").read_text())
    found = await server.open_uri(uri, text)
    call = next(i for i, line in enumerate(text.splitlines()) if "compiled(**batch)" in line)
    assert [(d.code, d.range.start.line) for d in found] == [(BREAK, call)], [d.message for d in found]
    fix = pick(await proven(server, uri, call), "Let torch.compile skip the library's `warning_once` calls")
    assert fix.title.endswith("(no graph break there; matches eager)"), fix.title
    new = apply_edit(text, (await resolve(server, fix)).edit, uri, 1)
    assert (
        "import logging\ntorch._dynamo.config.ignore_logging_functions.add(logging.Logger.warning_once)\n"
        in new
    )
    assert await saved(server, uri, name, new) == []


async def test_transformers_own_config_fix_for_the_checkpointing_break_is_proven(server: Session) -> None:
    """The same HF step: the break is transformers' `use_cache` warning under gradient checkpointing.
    transformers' own configuration, `model.config.use_cache = False` before the compile, is proven
    (no break at the library's line; matches eager) and offered on the call's line; applied and saved,
    the script has no finding. (`use_reentrant=False` still breaks there: not offered.)"""
    name = "realcode_hf_bert_cache/train_bert_hf.py"
    (server.root / "realcode_hf_bert_cache").mkdir(exist_ok=True)
    uri, text = server.write(name, (CORPUS / "hf_bert" / "train_bert_hf.py").read_text())
    found = await server.open_uri(uri, text)
    call = next(i for i, line in enumerate(text.splitlines()) if "compiled(**batch)" in line)
    assert [(d.code, d.range.start.line) for d in found] == [(BREAK, call)], [d.message for d in found]
    fix = pick(await proven(server, uri, call), "Turn transformers' cache off before compiling")
    assert fix.title.endswith("(no graph break there; matches eager)"), fix.title
    new = apply_edit(text, (await resolve(server, fix)).edit, uri, 1)
    assert "model.config.use_cache = False\ncompiled = torch.compile(model)\n" in new, new
    assert await saved(server, uri, name, new) == []


async def test_simclrs_boolean_masks_are_captured_in_the_graph(server: Session) -> None:
    """SimCLR's `info_nce_loss` (tests/compile/test_compile_training.py): four mask selections, each a
    data-dependent size torch breaks on. torch's `capture_dynamic_output_shape_ops` is proven (no break
    there; matches eager) and, applied once, removes all four."""
    name = "realcode_simclr/train_simclr.py"
    (server.root / "realcode_simclr").mkdir(exist_ok=True)
    uri, text = server.write(name, (CORPUS / "simclr" / "train_simclr.py").read_text())
    found = await server.open_uri(uri, text)
    masks = [i for i, line in enumerate(text.splitlines()) if "[~mask]" in line or "labels.bool()]" in line]
    assert [(d.code, d.range.start.line) for d in found] == [(BREAK, line) for line in masks]
    fix = pick(await proven(server, uri, masks[0]), "Capture the data-dependent size in the graph")
    assert fix.title.endswith("(no graph break there; matches eager)"), fix.title
    new = apply_edit(text, (await resolve(server, fix)).edit, uri, 1)
    assert await saved(server, uri, name, new) == []
