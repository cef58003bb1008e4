"""Line-based text edits: the only way a fix changes a buffer.

Every fix is a list of whole-line replacements (so columns never need UTF-16
care), applied at once as one undoable edit.  `apply` refuses a result that
does not parse: no fix is ever offered that would break the file.  What it returns is the
fix's candidate text as one `Document`: the proof exports it and discovers its modules from
that document's one parse.
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass

from ..document import Document


@dataclass(frozen=True)
class Edit:
    """Replace lines [first, end) (0-based, `end` exclusive) with `text` (whole lines, '\n'-terminated).

    `first == end` inserts before line `first`.
    """

    first: int
    end: int
    text: str


class EditError(ValueError):
    """The edits overlap, point outside the text, or produce a file that does not parse."""


def apply(doc: Document, edits: list[Edit]) -> Document:
    """The document after `edits` (the same path, version and URI: the text a fix proposes for
    that buffer); raises EditError unless the whole result parses."""
    source = doc.text
    lines = source.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"  # normalised; an edit that reaches the end keeps it so
    ordered = sorted(edits, key=lambda e: (e.first, e.end))
    for a, b in itertools.pairwise(ordered):
        if b.first < a.end:
            raise EditError("overlapping edits")
    for edit in ordered:
        if not 0 <= edit.first <= edit.end <= len(lines):
            raise EditError(f"edit outside the text: lines {edit.first}-{edit.end}")
    try:
        for text in _edited_regions(doc, lines, ordered):
            ast.parse(text)
    except SyntaxError as exc:
        raise EditError(f"the edited text does not parse: {exc.msg}") from exc
    new = lines[:]
    for edit in reversed(ordered):
        new[edit.first : edit.end] = edit.text.splitlines(keepends=True)
    text = "".join(new)
    if not source.endswith("\n") and text.endswith("\n") and source:
        text = text[:-1]
    return Document(doc.path, text, doc.version, doc.uri)


def _edited_regions(doc: Document, lines: list[str], ordered: list[Edit]) -> list[str]:
    """The edited text of each run of top-level statements the edits touch.

    Top-level statements parse independently, so checking the ones an edit touches and their
    neighbours is checking the file, at the cost of a few statements instead of the whole
    buffer: a publish checks every fix of every finding.
    """
    spans = doc.top_level_spans
    if spans is None:
        whole = lines[:]
        for edit in reversed(ordered):
            whole[edit.first : edit.end] = edit.text.splitlines(keepends=True)
        return ["".join(whole)]
    regions: list[list[int]] = []  # [first line, end line) in the original text, in order
    for edit in ordered:
        # The statements the edited lines overlap or touch, and one more on each side: an indented
        # line continues the statement before, a decorator line the one after.
        touched = [i for i, (start, end) in enumerate(spans) if start <= edit.end and end >= edit.first]
        lo, hi = edit.first, edit.end
        if touched:
            first, last = max(touched[0] - 1, 0), min(touched[-1] + 1, len(spans) - 1)
            lo, hi = min(lo, spans[first][0]), max(hi, spans[last][1])
        if regions and lo <= regions[-1][1]:
            regions[-1] = [min(regions[-1][0], lo), max(regions[-1][1], hi)]
        else:
            regions.append([lo, hi])
    texts = []
    for lo, hi in regions:
        part = lines[lo:hi]
        for edit in reversed([e for e in ordered if lo <= e.first and e.end <= hi]):
            part[edit.first - lo : edit.end - lo] = edit.text.splitlines(keepends=True)
        texts.append("".join(part))
    return texts


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def reindent(lines: list[str], old: str, new: str) -> list[str]:
    """Move a block from indentation `old` to `new` (blank lines stay blank)."""
    out = []
    for line in lines:
        if not line.strip():
            out.append("\n")
        elif line.startswith(old):
            out.append(new + line[len(old) :])
        else:  # a continuation line indented less than the block: keep its relative shape
            out.append(new + line.lstrip())
    return out


def node_lines(source_lines: list[str], node: ast.stmt) -> tuple[int, int]:
    """0-based [first, end) lines of a statement, decorators included."""
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))]) - 1
    return first, node.end_lineno or node.lineno


def unique_name(taken: set[str], base: str) -> str:
    name, n = base, 2
    while name in taken:
        name, n = f"{base}{n}", n + 1
    taken.add(name)
    return name


def ensure_import(doc: Document, module: str, name: str) -> list[Edit]:
    """An edit adding `from module import name` after the last top-level import, unless present."""
    tree = doc.tree
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module == module:
            if any(a.name == name and a.asname is None for a in stmt.names):
                return []
    last = last_import_line(tree)
    return [Edit(last, last, f"from {module} import {name}\n")]


def last_import_line(tree: ast.Module) -> int:
    """0-based line after the last top-level import (0 if none): where a new import goes."""
    last = 0
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            last = stmt.end_lineno or stmt.lineno
    return last


def _col(line: str, byte_col: int) -> int:
    """CPython's UTF-8 byte column → str index."""
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))


def span_edits(doc: Document, replacements: list[tuple[ast.AST, str]]) -> list[Edit]:
    """Replace expressions (by their AST positions) with new text, as whole-line edits."""
    lines = doc.text.splitlines(keepends=True)
    spans = sorted(
        (
            (n.lineno - 1, n.col_offset, (n.end_lineno or n.lineno) - 1, n.end_col_offset or 0, text)  # type: ignore[attr-defined]
            for n, text in replacements
        ),
        key=lambda s: (s[0], s[1]),
    )
    groups: list[list[tuple[int, int, int, int, str]]] = []
    for span in spans:
        if groups and span[0] <= groups[-1][-1][2]:
            groups[-1].append(span)
        else:
            groups.append([span])
    edits = []
    for group in groups:
        first, last = group[0][0], max(s[2] for s in group)
        starts = [0]
        for ln in lines[first : last + 1]:
            starts.append(starts[-1] + len(ln))
        block = "".join(lines[first : last + 1])

        def at(line: int, byte_col: int) -> int:
            return starts[line - first] + _col(lines[line], byte_col)  # noqa: B023 - used at once

        for a, ac, b, bc, text in reversed(group):
            block = block[: at(a, ac)] + text + block[at(b, bc) :]
        edits.append(Edit(first, last + 1, block if block.endswith("\n") else block + "\n"))
    return edits
