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


FUNCTIONAL_TRAINING = {
    "dropout": 2,
    "alpha_dropout": 2,
    "feature_alpha_dropout": 2,
    "dropout1d": 2,
    "dropout2d": 2,
    "dropout3d": 2,
    "batch_norm": 5,
    "rrelu": 3,
}


def call_on_line(tree: ast.Module, line: int, names: list[str]) -> ast.Call | None:
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.lineno == line]
    for call in sorted(calls, key=lambda n: n.col_offset):
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in names:
            return call
    return None


def passes_training(call: ast.Call) -> bool:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name not in FUNCTIONAL_TRAINING:
        return True  # a layer call: .eval() switches it
    return any(k.arg == "training" for k in call.keywords) or len(call.args) > FUNCTIONAL_TRAINING[name]


def mutation_on_line(tree: ast.Module, line: int, name: str) -> tuple[int, int, int, int] | None:
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) != line:
            continue
        if isinstance(node, (ast.AugAssign, ast.Assign)) and name in {
            n.id
            for t in getattr(node, "targets", [getattr(node, "target", None)])
            for n in ast.walk(t)
            if isinstance(n, ast.Name)
        }:
            return span(node)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr.endswith("_")
        ):
            return span(node)
    return None


def built_from(tree: ast.Module, class_name: str) -> list[str]:
    """`class_name` and the file's classes it uses, directly or through each other, in that order."""
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    order, todo = [class_name], [class_name]
    while todo:
        cls = classes.get(todo.pop())
        for node in ast.walk(cls) if cls is not None else ():
            if isinstance(node, ast.Name) and node.id in classes and node.id not in order:
                order.append(node.id)
                todo.append(node.id)
    return order
