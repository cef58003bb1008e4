"""Jupyter notebooks in the editor (LSP 3.17 notebook synchronisation): the notebook is one
document, its code cells joined (notebook/cells.py), checked under the notebook's URI and version;
what is said about it goes to the cells.

pygls keeps the notebook and each cell's text document; `cells` reads them into `Cell`s for the
`Document` (lsp/documents.py). Requests come on a cell's URI with positions in the cell: `joined`
turns them into the notebook's; diagnostics, lenses and edits go back to the cell that holds
their lines, with positions in it. An edit names the cell's own version: a cell edited since is
refused by the client, as a stale edit of a file is.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

import attrs
from lsprotocol import types

from ..document import Document
from ..notebook import Cell
from ..notebook.cells import CellSpan
from ..textpos import utf16_len
from .buffer_events import closed, edited, opened

if TYPE_CHECKING:
    from pygls.workspace import Workspace

    from .app import ExportLensServer

# The notebook kinds checked: Jupyter notebooks and VS Code's interactive window, Python cells.
SYNC = types.NotebookDocumentSyncOptions(
    notebook_selector=[
        types.NotebookDocumentFilterWithCells(
            cells=[types.NotebookCellLanguage(language="python")], notebook=kind
        )
        for kind in ("jupyter-notebook", "interactive")
    ],
    save=True,
)


# notebook URI -> the cells it last published diagnostics for
_PUBLISHED: dict[str, set[str]] = {}


def cells(workspace: Workspace, uri: str) -> tuple[int, list[Cell]] | None:
    """The notebook `uri`'s version and cells, or None when `uri` is no open notebook."""
    notebook = workspace.get_notebook_document(notebook_uri=uri)
    if notebook is None:
        return None
    found = []
    for index, cell in enumerate(notebook.cells):
        if unquote(cell.document) not in workspace.text_documents:  # pygls keys them unquoted
            continue  # a cell the client never opened: nothing of it is known
        text = workspace.get_text_document(cell.document)
        code = cell.kind == types.NotebookCellKind.Code and text.language_id in (None, "python")
        found.append(Cell(index, text.source, cell.document, code, text.version or 0))
    return notebook.version, found


def notebook_of(ls: ExportLensServer, uri: str) -> str | None:
    """The notebook a cell URI is in."""
    notebook = ls.workspace.get_notebook_document(cell_uri=uri)
    return notebook.uri if notebook is not None and notebook.uri != uri else None


def joined(ls: ExportLensServer, uri: str, line: int) -> tuple[str, int, CellSpan | None]:
    """A request's (uri, line) as the checked document's: a cell's become its notebook's."""
    owner = notebook_of(ls, uri)
    if owner is None or owner not in ls.session.files:
        return uri, line, None
    notebook = ls.session.document(owner).notebook
    span = notebook.span_of_uri(uri) if notebook is not None else None
    return (owner, line + span.first, span) if span is not None else (uri, line, None)


def in_cell(doc: Document, where: types.Range) -> tuple[CellSpan, types.Range] | None:
    """A range of the joined text in its cell (its end kept inside the cell)."""
    found = doc.notebook.in_cell(where.start.line) if doc.notebook is not None else None
    if found is None:
        return None
    span, line = found
    end = where.end
    if end.line >= span.first + span.lines:
        end = types.Position(line=span.first + span.lines - 1, character=utf16_len(_lines(span)[-1]))
    start = types.Position(line=line, character=where.start.character)
    return span, types.Range(
        start=start, end=types.Position(line=end.line - span.first, character=end.character)
    )


def publish_cells(ls: ExportLensServer, doc: Document, diagnostics: list[types.Diagnostic]) -> None:
    """Each code cell's diagnostics (none for a cell with none), in the cell's positions; a
    related location in the notebook points into its cell."""
    assert doc.notebook is not None
    path_uri = str(doc.uri)
    by_cell: dict[str, list[types.Diagnostic]] = {str(s.cell.uri): [] for s in doc.notebook.spans}
    for diagnostic in diagnostics:
        placed = in_cell(doc, diagnostic.range)
        if placed is None:
            continue
        span, diagnostic.range = placed
        for related in diagnostic.related_information or []:
            if related.location.uri == path_uri or related.location.uri == _file_uri(doc):
                where = in_cell(doc, related.location.range)
                if where is not None:
                    related.location = types.Location(uri=str(where[0].cell.uri), range=where[1])
        by_cell[str(span.cell.uri)].append(diagnostic)
    # A cell removed since the last publish: its diagnostics go too (the client keeps them by URI).
    for gone in _PUBLISHED.get(path_uri, set()) - set(by_cell):
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=gone, diagnostics=[]))
    _PUBLISHED[path_uri] = set(by_cell)
    for cell_uri, found in by_cell.items():
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=cell_uri, diagnostics=found))


def cell_edit(doc: Document, edits: list[types.TextEdit]) -> types.WorkspaceEdit:
    """Edits of the joined text as edits of the cells, each on its cell's version. An insertion
    where a cell starts goes to the end of the cell before (an import added after the imports
    lands in the cell that holds them)."""
    assert doc.notebook is not None
    changes: dict[str, tuple[CellSpan, list[types.TextEdit]]] = {}
    for edit in edits:
        start = edit.range.start
        span, text, where = None, edit.new_text, edit.range
        if start == edit.range.end and start.character == 0 and start.line > 0:
            before = doc.notebook.span_of_line(start.line - 1)
            if before is not None and before.first + before.lines == start.line:
                last = _lines(before)[-1]
                end = types.Position(line=before.lines - 1, character=utf16_len(last))
                span, where = before, types.Range(start=end, end=end)
                text = "\n" + text.removesuffix("\n") if last else text.removesuffix("\n")
        if span is None:
            placed = in_cell(doc, edit.range)
            if placed is None:
                continue
            span, where = placed
        changes.setdefault(str(span.cell.uri), (span, []))[1].append(
            types.TextEdit(range=where, new_text=text)
        )
    return types.WorkspaceEdit(
        document_changes=[
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(
                    uri=uri, version=span.cell.version
                ),
                edits=cell_edits,
            )
            for uri, (span, cell_edits) in changes.items()
        ]
    )


def _lines(span: CellSpan) -> list[str]:
    text = span.cell.text.replace("\r\n", "\n")
    lines = text.split("\n")
    return lines[: span.lines] or [""]


def _file_uri(doc: Document) -> str:
    return Path(doc.path).resolve().as_uri()


def register(server: ExportLensServer) -> None:
    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def did_open(ls: ExportLensServer, params: types.DidOpenNotebookDocumentParams) -> None:
        opened(ls, params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def did_change(ls: ExportLensServer, params: types.DidChangeNotebookDocumentParams) -> None:
        # cells added, removed or moved: checked whatever runOn says
        edited(
            ls, params.notebook_document.uri, now=bool(params.change.cells and params.change.cells.structure)
        )

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def did_save(ls: ExportLensServer, params: types.DidSaveNotebookDocumentParams) -> None:
        opened(ls, params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def did_close(ls: ExportLensServer, params: types.DidCloseNotebookDocumentParams) -> None:
        uri = params.notebook_document.uri
        closed(ls, uri)
        _PUBLISHED.pop(uri, None)
        for cell in params.cell_text_documents:
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=cell.uri, diagnostics=[]))


def _shift(where: types.Range, lines: int) -> types.Range:
    return types.Range(
        start=types.Position(line=where.start.line + lines, character=where.start.character),
        end=types.Position(line=where.end.line + lines, character=where.end.character),
    )


def code_action_params(ls: ExportLensServer, params: types.CodeActionParams) -> types.CodeActionParams:
    """A request on a cell as the same request on its notebook's joined text."""
    uri, _, span = joined(ls, params.text_document.uri, 0)
    if span is None:
        return params
    diagnostics = [attrs.evolve(d, range=_shift(d.range, span.first)) for d in params.context.diagnostics]
    return types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=_shift(params.range, span.first),
        context=types.CodeActionContext(
            diagnostics=diagnostics, only=params.context.only, trigger_kind=params.context.trigger_kind
        ),
    )


def to_cells(doc: Document, edit: types.WorkspaceEdit | None) -> types.WorkspaceEdit | None:
    """An edit of the notebook's joined text as edits of its cells."""
    if edit is None or doc.notebook is None:
        return edit
    edits = [
        e
        for change in edit.document_changes or []
        if isinstance(change, types.TextDocumentEdit)
        for e in change.edits
        if isinstance(e, types.TextEdit)
    ]
    return cell_edit(doc, edits)


def cell_lenses(ls: ExportLensServer, uri: str, found: list[types.CodeLens]) -> list[types.CodeLens]:
    """The lenses on a cell's lines, in the cell's positions (a cell URI's request)."""
    _, _, span = joined(ls, uri, 0)
    if span is None:
        return found
    inside = [lens for lens in found if span.first <= lens.range.start.line < span.first + span.lines]
    for lens in inside:
        lens.range = _shift(lens.range, -span.first)
    return inside
