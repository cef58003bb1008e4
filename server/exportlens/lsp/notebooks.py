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

from typing import TYPE_CHECKING

import attrs
from lsprotocol import types

from ..document import Document
from ..notebook.cells import CellSpan
from ..textpos import utf16_len
from .buffer_events import closed, edited, opened
from .cell_positions import cell_lines, in_cell

if TYPE_CHECKING:
    from .app import ExportLensServer


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
                last = cell_lines(before)[-1]
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
        for cell in params.cell_text_documents:  # those it never published for too
            ls.publisher.clear(cell.uri)


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
