"""One parse of a buffer text, and the lookups on it, shared by every fix builder.

A publish computes the fixes of every finding of a file; each builder parsing and walking the
whole file again made that quadratic (50 failing modules in 700 lines: 10 s with the server
blocked).  The trees here are shared: builders read them and never change them (a builder that
rewrites nodes works on a `copy.deepcopy` of the part it rewrites).
"""

from __future__ import annotations

import ast
import functools


@functools.lru_cache(maxsize=4)
def tree_of(source: str) -> ast.Module:
    return ast.parse(source)


@functools.lru_cache(maxsize=4)
def names_of(source: str) -> frozenset[str]:
    """Every name bound or read anywhere in the text: a new name must avoid them all."""
    return frozenset(names_in(tree_of(source)))


@functools.lru_cache(maxsize=4)
def parents_of(source: str) -> dict[ast.AST, ast.AST]:
    tree = tree_of(source)
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


# Line breaks str.splitlines knows and Python's tokenizer does not: with them, text lines and
# the syntax tree's line numbers disagree.
_OTHER_BREAKS = frozenset("\v\f\x1c\x1d\x1e\x85\u2028\u2029")


@functools.lru_cache(maxsize=4)
def top_level_spans(source: str) -> list[tuple[int, int]] | None:
    """0-based [first, end) lines of each top-level statement, from its first line (decorators
    included) to the next one's: the blank and comment lines after a statement are its own (an
    indented line inserted there continues it).  None when the text does not parse or its lines
    are not the tree's lines."""
    if _OTHER_BREAKS.intersection(source):
        return None
    try:
        tree = tree_of(source)
    except SyntaxError:
        return None
    starts = []
    for stmt in tree.body:
        decorators = getattr(stmt, "decorator_list", None) or []
        starts.append(min([stmt.lineno, *(d.lineno for d in decorators)]) - 1)
    if not starts:
        return []
    starts[0] = 0  # leading comments belong to the first statement
    return list(zip(starts, [*starts[1:], source.count("\n") + 1], strict=True))


def names_in(tree: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))
    }


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
