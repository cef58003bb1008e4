"""The fix builders' view of the text they fix: its document's one parse and the lookups on it.

Builders work on the text (`doc.text`); each lookup here finds the `Document` that owns that
very string (document.py) and reads what it computed once: a publish computes the fixes of every
finding of a file, and each builder parsing and walking the whole file again made that quadratic
(50 failing modules in 700 lines: 10 s with the server blocked).  A text no document owns (a test's
literal) gets a document of its own (`document_of`).  The trees are shared: builders read them
and never change them (a builder that rewrites nodes works on a `copy.deepcopy` of the part it
rewrites).
"""

from __future__ import annotations

import ast

from ..document import document_of, names_in

__all__ = ["document_of", "enclosing", "names_in", "names_of", "parents_of", "top_level_spans", "tree_of"]


def tree_of(source: str) -> ast.Module:
    return document_of(source).tree


def names_of(source: str) -> frozenset[str]:
    """Every name bound or read anywhere in the text: a new name must avoid them all."""
    return document_of(source).names


def parents_of(source: str) -> dict[ast.AST, ast.AST]:
    return document_of(source).parents


def top_level_spans(source: str) -> list[tuple[int, int]] | None:
    """0-based [first, end) lines of each top-level statement (Document.top_level_spans)."""
    return document_of(source).top_level_spans


def enclosing(tree: ast.AST, line: int, kind: type[ast.AST]) -> list[ast.AST]:
    """Nodes of `kind` whose lines include 1-based `line`, outermost first.

    Descends only into nodes whose lines include `line` (and into nodes without lines, such as
    `arguments`), so a lookup costs the depth of the line, not the size of the file."""
    hits: list[ast.AST] = []
    todo: list[ast.AST] = [tree]
    while todo:
        for child in ast.iter_child_nodes(todo.pop()):
            start = getattr(child, "lineno", None)
            if start is None:
                todo.append(child)
            elif start <= line <= (getattr(child, "end_lineno", None) or start):
                if isinstance(child, kind):
                    hits.append(child)
                todo.append(child)
    return sorted(hits, key=lambda n: n.lineno)  # type: ignore[attr-defined]
