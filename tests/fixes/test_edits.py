"""The text side of fixes, without a server: edits that must parse, hoisting, Dim rewrites, LSP edits."""

from __future__ import annotations

import pytest

from exportlens.document import Document
from exportlens.fixes import Edit, EditError, apply, fixes_for
from exportlens.lsp.code_actions import workspace_edit


def buffer(text: str) -> Document:
    """The buffer a fix is computed on (nothing is read from its path)."""
    return Document("/fixes/model.py", text)


ITEM = """import torch


class M(torch.nn.Module):
    def forward(self, x):
        if x.max().item() > 0:  # why
            return x + 1
        return x - 1
"""
DIMS = """import torch


class Mix(torch.nn.Module):
    def forward(self, x, y):
        return x * y


if __name__ == "__main__":
    bx, by = torch.export.Dim("bx"), torch.export.Dim("by")
    torch.export.export(Mix(), (torch.randn(8), torch.randn(8)), dynamic_shapes={"x": {0: bx}, "y": {0: by}})
"""


def test_apply_refuses_overlaps_and_text_that_does_not_parse() -> None:
    source = "a = 1\nb = 2\n"
    with pytest.raises(EditError, match="overlapping"):
        apply(buffer(source), [Edit(0, 2, "c = 3\n"), Edit(1, 2, "d = 4\n")])
    with pytest.raises(EditError, match="does not parse"):
        apply(buffer(source), [Edit(0, 1, "if a\n")])
    assert apply(buffer("a = 1"), [Edit(0, 1, "a = 2\n")]).text == "a = 2"  # no newline at the end stays so


def test_item_in_the_test_is_hoisted_so_check_and_if_share_one_value() -> None:
    fixes = [f for f in fixes_for(buffer(ITEM), "data-dependent-guard", 5, {}, "M") if f.kind == "check"]
    assert [f.title for f in fixes] == [
        "Add torch._check(value > 0) before the `if` (assumes `value > 0` is always True)",
        "Add torch._check(value <= 0) before the `if` (assumes `value > 0` is always False)",
    ]
    new = apply(buffer(ITEM), fixes[0].edits).text
    assert (
        "        value = x.max().item()\n        torch._check(value > 0)\n        if value > 0:  # why\n"
        in new
    )


def test_torch_suggestions_become_dim_edits_with_a_new_declaration_and_import() -> None:
    data = {"suggested": ["_h = Dim('_h', max=4)", "bx = 2*_h"]}
    (fix,) = fixes_for(buffer(DIMS), "dim-range-narrowed", 5, data, "Mix")
    new = apply(buffer(DIMS), fix.edits).text
    assert "from torch.export import Dim\n" in new
    assert "    _h = Dim('_h', max=4)\n    torch.export.export(" in new
    assert '{"x": {0: (2 * _h)}, "y": {0: by}}' in new
    (share,) = fixes_for(buffer(DIMS), "dims-must-be-equal", 5, {"suggested": ["by = bx"]}, "Mix")
    assert '{"x": {0: bx}, "y": {0: bx}}' in apply(buffer(DIMS), share.edits).text
    (narrow,) = fixes_for(
        buffer(DIMS), "dim-range-narrowed", 5, {"suggested": ["bx = Dim('bx', max=16)"]}, "Mix"
    )
    assert (
        "bx, by = torch.export.Dim('bx', max=16), torch.export.Dim(\"by\")"
        in apply(buffer(DIMS), narrow.edits).text
    )


def test_lsp_edit_is_versioned_and_keeps_a_missing_final_newline() -> None:
    source = "def f(x):\n    if x.sum() > 0:\n        return x + 1\n    return x - 1"
    cond = next(
        f for f in fixes_for(buffer(source), "data-dependent-branch", 1, {}, None) if f.kind == "cond"
    )
    edit = workspace_edit(Document("/m.py", source, 7, "file:///m.py"), cond)
    assert edit.document_changes is not None
    (change,) = edit.document_changes
    assert change.text_document.version == 7  # type: ignore[union-attr]
    lines = source.splitlines(keepends=True)
    text = source
    for e in sorted(change.edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):  # type: ignore[union-attr]
        start = sum(len(x) for x in lines[: e.range.start.line]) + e.range.start.character
        end = sum(len(x) for x in lines[: e.range.end.line]) + e.range.end.character
        text = text[:start] + e.new_text + text[end:]
    assert text == apply(buffer(source), cond.edits).text and not text.endswith("\n")
