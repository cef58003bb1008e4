"""A finding's place in a notebook file as its cell and a range in it, for the CLI's reports
(text: `model.ipynb:cell 2:4:12`, as ruff says it; JSON and SARIF: the cell and cell-relative
ranges). Cell numbers count every cell from 1, markdown ones too: the number the editor shows."""

from __future__ import annotations

from ..findings import Position, Range
from ..reading import read_document


def in_cell(path: str, where: Range) -> tuple[int, Range] | None:
    """(1-based cell number, the range in that cell) for a range in a notebook file's joined code;
    None for a file that is no notebook (or no longer reads as one)."""
    if not path.endswith(".ipynb"):
        return None

    try:
        notebook = read_document(path).notebook
    except (OSError, SyntaxError):
        return None
    found = notebook.in_cell(where.start.line) if notebook is not None else None
    if found is None:
        return None
    span, line = found
    end_line = min(where.end.line - span.first, span.lines - 1)
    end = Position(end_line, where.end.character)
    if end_line < line:
        end = Position(line, where.start.character)
    return span.cell.index + 1, Range(Position(line, where.start.character), end)
