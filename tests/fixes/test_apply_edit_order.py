"""The tests' client applies a quick-fix's edits as VS Code does (tests/fixes/conftest.py): two
inserts at one position land in the order they are listed (LSP's rule for TextEdit arrays)."""

from __future__ import annotations

from lsprotocol import types

from tests.fixes.conftest import apply_edit

URI = "file:///w/model.py"


def _insert(line: int, text: str) -> types.TextEdit:
    at = types.Position(line=line, character=0)
    return types.TextEdit(range=types.Range(start=at, end=at), new_text=text)


def test_inserts_at_one_position_keep_their_listed_order() -> None:
    edits: list[types.TextEdit | types.AnnotatedTextEdit | types.SnippetTextEdit] = [
        _insert(0, "import torch\n"),
        _insert(0, "import math\n"),
        _insert(1, "# after x\n"),
    ]
    change = types.TextDocumentEdit(
        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=URI, version=3), edits=edits
    )
    new = apply_edit("x = 1\ny = 2\n", types.WorkspaceEdit(document_changes=[change]), URI, 3)
    assert new == "import torch\nimport math\nx = 1\n# after x\ny = 2\n"
