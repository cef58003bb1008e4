"""Jupyter notebooks through the real server (LSP 3.17 notebook synchronisation, the real worker):
diagnostics, hover and quick-fixes on the cell they belong to, cells added, removed, moved and
edited, and a training cell that never runs."""

from __future__ import annotations

import ast

from lsprotocol import types

from exportlens.notebook import Cell, read_ipynb
from tests.paths import ROOT

from .conftest import Session

GUARDED = ROOT / "tests" / "data" / "notebooks" / "guarded.ipynb"
CANARY = "TRAINING_CELL_RAN.pth"  # what guarded.ipynb's training cell writes

IMPORTS = "import torch\nfrom torch import nn\n"
GATE = """class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        y = self.lin(x)
        if y.sum() > 0:
            return y
        return -y
"""
FIXED = GATE.replace("if y.sum() > 0:", "if y.shape[0] > 0:")
TRAIN = "for step in range(3):\n    raise RuntimeError('trained')\n"
EXPORT = "torch.export.export(Gate(), (torch.randn(2, 4),))\n"


class Notebook:
    """One notebook open in the server, as VS Code syncs it: its cells' URIs and versions."""

    def __init__(self, server: Session, name: str, cells: list[Cell]) -> None:
        self.server = server
        self.path = server.root / name
        self.uri = self.path.as_uri()
        self.version = 1
        self.made = 0
        self.cells: list[tuple[str, bool]] = []  # (cell URI, is code)
        self.texts: dict[str, str] = {}
        self.cell_versions: dict[str, int] = {}
        items = [self._item(c.text, c.code) for c in cells]
        mark = len(server.record.checked)
        server.client.notebook_document_did_open(
            types.DidOpenNotebookDocumentParams(
                notebook_document=types.NotebookDocument(
                    uri=self.uri,
                    notebook_type="jupyter-notebook",
                    version=1,
                    cells=[self._cell(i.uri, code) for i, code in items],
                ),
                cell_text_documents=[i for i, _ in items],
            )
        )
        self.cells = [(i.uri, code) for i, code in items]
        self.mark = mark

    def _item(self, text: str, code: bool = True) -> tuple[types.TextDocumentItem, bool]:
        self.made += 1
        # As VS Code names cells: the fragment URI-encoded (pygls keys documents unquoted).
        uri = f"vscode-notebook-cell:{self.path}#W{self.made}%3D%3D"
        self.texts[uri], self.cell_versions[uri] = text, 1
        language = "python" if code else "markdown"
        return types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text), code

    @staticmethod
    def _cell(uri: str, code: bool) -> types.NotebookCell:
        kind = types.NotebookCellKind.Code if code else types.NotebookCellKind.Markup
        return types.NotebookCell(kind=kind, document=uri)

    def _change(self, cells: types.NotebookDocumentCellChanges) -> int:
        self.version += 1
        self.server.client.notebook_document_did_change(
            types.DidChangeNotebookDocumentParams(
                notebook_document=types.VersionedNotebookDocumentIdentifier(
                    uri=self.uri, version=self.version
                ),
                change=types.NotebookDocumentChangeEvent(cells=cells),
            )
        )
        return self.version

    def splice(self, start: int, delete: int, new: list[str], reopen: tuple[str, ...] = ()) -> int:
        """Replace `delete` cells at `start` by new code cells (texts) or, for a move, by cells
        already in the notebook (`reopen`: their URIs)."""
        closed = [uri for uri, _ in self.cells[start : start + delete] if uri not in reopen]
        items = [self._item(text) for text in new]
        cells = [*(self._cell(u, True) for u in reopen), *(self._cell(i.uri, True) for i, _ in items)]
        self.cells[start : start + delete] = [
            *((u, True) for u in reopen),
            *((i.uri, True) for i, _ in items),
        ]
        structure = types.NotebookDocumentCellChangeStructure(
            array=types.NotebookCellArrayChange(start=start, delete_count=delete, cells=cells),
            did_open=[i for i, _ in items] or None,
            did_close=[types.TextDocumentIdentifier(uri=u) for u in closed] or None,
        )
        return self._change(types.NotebookDocumentCellChanges(structure=structure))

    def edit(self, index: int, text: str) -> int:
        uri = self.cells[index][0]
        self.cell_versions[uri] += 1
        self.texts[uri] = text
        change = types.NotebookDocumentCellContentChanges(
            document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.cell_versions[uri]),
            changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
        return self._change(types.NotebookDocumentCellChanges(text_content=[change]))

    async def checked(self, version: int) -> None:
        checks = self.server.record.checked
        await self.server.until(
            lambda: any(c["uri"] == self.uri and c["version"] == version for c in checks[self.mark :])
        )

    def diagnostics(self, index: int) -> list[types.Diagnostic]:
        """The last diagnostics published for the cell at `index`."""
        uri = self.cells[index][0]
        found = [p for p in self.server.record.published if p.uri == uri]
        assert found, f"nothing published for cell {index}"
        return list(found[-1].diagnostics)

    def close(self) -> None:
        self.server.client.notebook_document_did_close(
            types.DidCloseNotebookDocumentParams(
                notebook_document=types.NotebookDocumentIdentifier(uri=self.uri),
                cell_text_documents=[types.TextDocumentIdentifier(uri=u) for u, _ in self.cells],
            )
        )


def errors(diagnostics: list[types.Diagnostic]) -> list[tuple[object, int, int]]:
    return [
        (d.code, d.range.start.line, d.range.start.character)
        for d in diagnostics
        if d.severity == types.DiagnosticSeverity.Error
    ]


async def test_guarded_notebook_error_on_its_cell_and_training_never_runs(server: Session) -> None:
    notebook = Notebook(server, "guarded.ipynb", read_ipynb(str(GUARDED)))
    await notebook.checked(1)
    # Cell 2 (index 1) defines the module; its `if` is that cell's line 4 (0-based 3).
    assert errors(notebook.diagnostics(1)) == [("data-dependent-branch", 3, 11)]
    (error,) = [d for d in notebook.diagnostics(1) if d.code == "data-dependent-branch"]
    for related in error.related_information or []:
        assert related.location.uri.startswith("vscode-notebook-cell:")  # the cell, not the file
    for index in (0, 2, 4):  # the other code cells: nothing
        assert notebook.diagnostics(index) == []
    # The training cell writes a checkpoint and raises: it never ran (the error is the `if`'s).
    assert not (server.root / CANARY).exists() and not (ROOT / CANARY).exists()
    hover = await server.hover(notebook.cells[1][0], 0, 8)
    assert hover is not None and "NeuralNetwork" in hover
    # The lenses are on the model's cell, on its class line; the export command works from it.
    lenses = await server.client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=notebook.cells[1][0]))
    )
    assert lenses and {lens.range.start.line for lens in lenses} == {0}
    titles = [lens.command.title for lens in lenses if lens.command]
    assert any("export issue" in title for title in titles), titles
    assert await server.lenses(notebook.cells[4][0]) == []
    exported = await server.command(
        "exportlens.exportModule", notebook.cells[1][0], {"line": 3, "character": 0}
    )
    assert exported["module"] == "NeuralNetwork" and exported["status"] == "failed"
    assert not (server.root / CANARY).exists()
    notebook.close()


async def test_a_name_only_a_skipped_cell_binds_is_said_on_the_export_cell(server: Session) -> None:
    data = "data = torch.load('batch.pt')\nraise RuntimeError('loaded')\n"  # read, not built
    export = "model = Gate()\ntorch.export.export(model, (data,))\n"
    notebook = Notebook(server, "skipped.ipynb", [Cell(0, IMPORTS + GATE), Cell(1, data), Cell(2, export)])
    await notebook.checked(1)
    said = [(d.code, d.range.start.line, d.range.start.character) for d in notebook.diagnostics(2)]
    assert ("notebook-skipped-name", 1, 28) in said, said
    assert notebook.diagnostics(1) == []
    notebook.close()


async def test_cells_added_removed_moved_and_edited(server: Session) -> None:
    cells = [Cell(0, IMPORTS), Cell(1, GATE), Cell(2, TRAIN), Cell(3, EXPORT)]
    notebook = Notebook(server, "edited.ipynb", cells)
    await notebook.checked(1)
    line = GATE.splitlines().index("        if y.sum() > 0:")
    assert errors(notebook.diagnostics(1)) == [("data-dependent-branch", line, 11)]

    # A cell added above: the error stays on its cell's line.
    version = notebook.splice(0, 0, ["HIDDEN = 4\n"])
    await notebook.checked(version)
    assert errors(notebook.diagnostics(2)) == [("data-dependent-branch", line, 11)]
    # A cell with a finding removed: its diagnostics go with it.
    version = notebook.splice(3, 0, ["def broken(:\n"])
    await notebook.checked(version)
    removed = notebook.cells[3][0]
    assert [d.code for d in notebook.diagnostics(3)] == ["syntax-error"]
    version = notebook.splice(3, 1, [])
    await notebook.checked(version)
    assert [list(p.diagnostics) for p in server.record.published if p.uri == removed][-1] == []
    # The cell added first removed, the training cell moved above the model: the same.
    version = notebook.splice(0, 1, [])
    await notebook.checked(version)
    # A move, as VS Code sends it: one splice of the cells it reorders, nothing opened or closed.
    model, training = notebook.cells[1][0], notebook.cells[2][0]
    version = notebook.splice(1, 2, [], reopen=(training, model))
    await notebook.checked(version)
    assert errors(notebook.diagnostics(2)) == [("data-dependent-branch", line, 11)]
    assert notebook.diagnostics(1) == []  # the training cell: nothing ran, nothing said

    # The model cell edited twice while checks run: the last text's result, never an older one.
    notebook.edit(2, FIXED)
    version = notebook.edit(2, GATE.replace("return -y", "return y * 2"))
    await notebook.checked(version)
    assert errors(notebook.diagnostics(2)) == [("data-dependent-branch", line, 11)]
    version = notebook.edit(2, FIXED)
    await notebook.checked(version)
    assert errors(notebook.diagnostics(2)) == []
    notebook.close()


async def test_quick_fix_edits_the_cell_on_its_version(server: Session) -> None:
    notebook = Notebook(server, "fixing.ipynb", [Cell(0, IMPORTS), Cell(1, GATE), Cell(2, EXPORT)])
    await notebook.checked(1)
    cell = notebook.cells[1][0]
    (error,) = [d for d in notebook.diagnostics(1) if d.code == "data-dependent-branch"]
    actions = await server.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=cell),
            range=error.range,
            context=types.CodeActionContext(diagnostics=[error]),
        )
    )
    fixes = [a for a in actions or [] if isinstance(a, types.CodeAction) and "torch.cond" in a.title]
    assert fixes, [a.title for a in actions or []]
    action = fixes[0]
    if action.edit is None:
        action = await server.client.code_action_resolve_async(action)
    assert action.edit is not None and action.edit.document_changes
    changed = [c for c in action.edit.document_changes if isinstance(c, types.TextDocumentEdit)]
    # One edit of the model's cell, on that cell's version, in the cell's lines.
    assert [c.text_document.uri for c in changed] == [cell]
    assert changed[0].text_document.version == notebook.cell_versions[cell]
    fixed = applied(GATE, changed[0].edits)
    assert "torch.cond(" in fixed and "if y.sum() > 0:" not in fixed
    ast.parse(IMPORTS + fixed)  # the cell still parses after the imports cell
    notebook.close()


def applied(text: str, edits: list[types.TextEdit | types.AnnotatedTextEdit]) -> str:
    """The text with the edits applied (ASCII text: columns are characters)."""
    lines = text.split("\n")
    offsets = [sum(len(line) + 1 for line in lines[:n]) for n in range(len(lines) + 1)]
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start = offsets[edit.range.start.line] + edit.range.start.character
        end = offsets[edit.range.end.line] + edit.range.end.character
        text = text[:start] + edit.new_text + text[end:]
    return text
