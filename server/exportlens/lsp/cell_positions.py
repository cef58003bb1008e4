"""A notebook's joined text (notebook/cells.py) in its cells' positions: a range, and each
diagnostic with its related locations, in the cell that holds it (publishing.py sends them)."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from ..document import Document
from ..notebook.cells import CellSpan
from ..textpos import utf16_len


def in_cell(doc: Document, where: types.Range) -> tuple[CellSpan, types.Range] | None:
    """A range of the joined text in its cell (its end kept inside the cell)."""
    found = doc.notebook.in_cell(where.start.line) if doc.notebook is not None else None
    if found is None:
        return None
    span, line = found
    end = where.end
    if end.line >= span.first + span.lines:
        end = types.Position(line=span.first + span.lines - 1, character=utf16_len(cell_lines(span)[-1]))
    start = types.Position(line=line, character=where.start.character)
    return span, types.Range(
        start=start, end=types.Position(line=end.line - span.first, character=end.character)
    )


def by_cell(doc: Document, diagnostics: list[types.Diagnostic]) -> dict[str, list[types.Diagnostic]]:
    """Each code cell's diagnostics (an empty list for a cell with none), in the cell's positions;
    a related location in the notebook points into its cell."""
    assert doc.notebook is not None
    notebook_uri, file_uri = str(doc.uri), Path(doc.path).resolve().as_uri()
    cells: dict[str, list[types.Diagnostic]] = {str(s.cell.uri): [] for s in doc.notebook.spans}
    for diagnostic in diagnostics:
        placed = in_cell(doc, diagnostic.range)
        if placed is None:
            continue
        span, diagnostic.range = placed
        for related in diagnostic.related_information or []:
            if related.location.uri in (notebook_uri, file_uri):
                where = in_cell(doc, related.location.range)
                if where is not None:
                    related.location = types.Location(uri=str(where[0].cell.uri), range=where[1])
        cells[str(span.cell.uri)].append(diagnostic)
    return cells


def cell_lines(span: CellSpan) -> list[str]:
    text = span.cell.text.replace("\r\n", "\n")
    lines = text.split("\n")
    return lines[: span.lines] or [""]
