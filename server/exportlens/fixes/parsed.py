"""Lookups the fix builders share on the document they fix (its one parse: `Document.tree`,
`names`, `parents`, `top_level_spans`, each computed once per text).

The trees are shared: builders read them and never change them (a builder that rewrites nodes
works on a `copy.deepcopy` of the part it rewrites).
"""

from __future__ import annotations

import ast

__all__ = ["enclosing"]


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
