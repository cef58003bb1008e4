"""How every finding names its module (DiagnosisContext.label): the class, then what was exported."""

from __future__ import annotations

import pytest

from exportlens.diagnosis.context import DiagnosisContext
from exportlens.document import Document
from exportlens.findings import Position, Range

AT = Range(Position(0, 0), Position(0, 1))


@pytest.mark.parametrize(
    ("module", "exported", "exported_as", "label"),
    [
        ("Net", None, None, "`Net`"),
        ("create", "Net", "model", "`Net` (exported as `model`)"),
        ("create", "Net", None, "`Net` (exported as `create`)"),
        # a second export call of a class: discovery names it by its line, never shown as is
        ("VisionTransformer@15", None, "visual", "`VisionTransformer` (exported as `visual` on line 15)"),
        ("Net@9", None, None, "`Net` (exported on line 9)"),
        ("build@9", "Net", "model", "`Net` (exported as `model` on line 9)"),
    ],
)
def test_the_label_names_the_class_and_what_was_exported(
    module: str, exported: str | None, exported_as: str | None, label: str
) -> None:
    doc = Document("/nowhere/net.py", "")
    ctx = DiagnosisContext(doc, module, "non-strict", AT, exported=exported, exported_as=exported_as)
    assert ctx.label == label
