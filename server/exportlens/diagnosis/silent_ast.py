"""Small `ast` helpers for the silent-corruption checks: names, imports, positions."""

from __future__ import annotations

import ast
import functools


def span(node: ast.AST) -> tuple[int, int, int, int]:
    """(line, col, end_line, end_col): 1-based lines, UTF-8 byte columns, as `ast` gives them."""
    line = int(getattr(node, "lineno", 1))
    end_line = getattr(node, "end_lineno", None) or line
    return (
        line,
        int(getattr(node, "col_offset", 0)),
        int(end_line),
        int(getattr(node, "end_col_offset", 0) or 0),
    )


def lineage(classes: dict[str, ast.ClassDef], name: str) -> list[ast.ClassDef]:
    chain: list[ast.ClassDef] = []
    while name in classes and classes[name] not in chain:
        cls = classes[name]
        chain.append(cls)
        bases = [dotted(b) for b in cls.bases]
        name = next((b for b in bases if b in classes), "")
    return chain


def module_globals(tree: ast.Module) -> dict[str, ast.expr | None]:
    """Module-level names -> the value bound, or None when bound more than once (or not by `=`)."""
    names: dict[str, ast.expr | None] = {}
    for stmt in tree.body:
        if not isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            continue
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        for target in targets:
            if isinstance(target, ast.Name):
                once = target.id not in names and not isinstance(stmt, ast.AugAssign)
                names[target.id] = stmt.value if once else None
    return names


@functools.lru_cache(maxsize=4)  # the same (cached, read-only) tree for every module of a file
def import_aliases(tree: ast.Module) -> dict[str, str]:
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                aliases[alias.asname or alias.name.partition(".")[0]] = (
                    alias.name if alias.asname else (alias.name.partition(".")[0])
                )
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


def mentions(node: ast.AST, names: set[str]) -> bool:
    return any(
        (isinstance(n, ast.Attribute) and n.attr in names) or (isinstance(n, ast.Name) and n.id in names)
        for n in ast.walk(node)
    )


def is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def dotted(node: ast.expr) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""
