"""A notebook's code cells joined into one text, and the map between its lines and the cells'.

Each code cell contributes its lines, in order, and ends with a line break: joined line `n` is
line `n - first` of the cell that holds it. IPython syntax (`%magic`, `!shell`, a `%%cell` magic)
is no Python: those lines become inert lines, so the joined text parses and keeps every line
where it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A line magic or shell escape, alone or assigned (`files = !ls`); not `!=`, not `%` as modulo
# (a line starting `% b` continues an expression).
_MAGIC_LINE = re.compile(r"^\s*(?:[\w.]+\s*=\s*)?(?:%%?[A-Za-z]|!(?!=))")


@dataclass(frozen=True)
class Cell:
    index: int  # 0-based among all the notebook's cells (markdown ones too): "cell index + 1" is shown
    text: str
    uri: str | None = None  # the cell's text document (LSP); None for a file read from disk
    code: bool = True  # a Python code cell (markdown and raw cells are not joined)
    version: int = 0  # its text document's version (LSP): an edit of the cell names it


@dataclass(frozen=True)
class CellSpan:
    cell: Cell
    first: int  # its first line in the joined text
    lines: int


class Notebook:
    """The cells and where each code cell's lines are in the joined text."""

    def __init__(self, cells: list[Cell]) -> None:
        self.cells = cells
        self.spans: list[CellSpan] = []
        parts: list[str] = []
        line = 0
        for cell in cells:
            if not cell.code:
                continue
            raw = cell.text.replace("\r\n", "\n")
            # Its lines as the editor counts them, less the empty one after a final line break.
            count = raw.count("\n") + (not raw.endswith("\n"))
            text = inert_magics(raw if raw.endswith("\n") else raw + "\n")
            self.spans.append(CellSpan(cell, line, count))
            parts.append(text)
            line += count
        self.text = "".join(parts)  # the joined code, magics inert: what is parsed

    def span_of_line(self, line: int) -> CellSpan | None:
        """The code cell that holds 0-based joined `line`."""
        return next((s for s in self.spans if s.first <= line < s.first + s.lines), None)

    def span_of_uri(self, uri: str) -> CellSpan | None:
        return next((s for s in self.spans if s.cell.uri == uri), None)

    def in_cell(self, line: int) -> tuple[CellSpan, int] | None:
        """Joined `line` -> its cell and its 0-based line there; the line after the last (where
        Python puts an error at the end of the text) is the last cell's last line."""
        span = self.span_of_line(line)
        if span is None and self.spans and line >= self.spans[-1].first + self.spans[-1].lines:
            span = self.spans[-1]
            line = span.first + span.lines - 1
        return (span, line - span.first) if span is not None else None


def inert_magics(text: str) -> str:
    """IPython lines as inert Python, one line for one: a `%%` cell becomes blank lines, a line
    magic or shell escape `pass` at its indentation (it may be a block's only statement)."""
    lines = text.split("\n")
    if text.lstrip().startswith("%%"):
        return "\n".join("" for _ in lines)
    out = []
    for line in lines:
        if _MAGIC_LINE.match(line):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}pass" if indent else "")
        else:
            out.append(line)
    return "\n".join(out)
