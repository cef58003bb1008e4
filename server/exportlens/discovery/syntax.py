"""Small AST helpers shared by the discovery passes."""

from __future__ import annotations

import ast
from collections.abc import Iterator

EXPORT_FUNCTIONS = {"export", "draft_export"}


def dotted(node: ast.AST) -> str | None:
    """`torch.nn.Module` for the expression `torch.nn.Module`; None if not a name chain."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def torch_imports(tree: ast.Module) -> dict[str, str]:
    """Local names bound by `from torch... import X [as Y]` / `import torch... as Y`."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "torch":
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "torch":
                    names[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0]
                    )
    return names


def resolve(name: str | None, imports: dict[str, str]) -> str | None:
    """Expand the first component of a dotted name through the file's imports."""
    if not name:
        return None
    head, _, rest = name.partition(".")
    full = imports.get(head, head)
    return f"{full}.{rest}" if rest else full


def is_export_call(node: ast.AST, imports: dict[str, str]) -> bool:
    if not isinstance(node, ast.Call) or (not node.args and not node.keywords):
        return False
    full = resolve(dotted(node.func), imports)
    if not full:
        return False
    module, _, function = full.rpartition(".")
    return function in EXPORT_FUNCTIONS and module in {"torch.export", "torch.export.export"}


def contains_export_call(node: ast.AST, imports: dict[str, str]) -> bool:
    return any(is_export_call(child, imports) for child in ast.walk(node))


def child_bodies(stmt: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The statement lists nested directly in a compound statement."""
    for name in ("body", "orelse", "finalbody"):
        body = getattr(stmt, name, None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            yield body
    for handler in getattr(stmt, "handlers", []) or []:
        yield handler.body
    for case in getattr(stmt, "cases", []) or []:
        yield case.body


def literal_int(node: ast.AST | None, names: dict[str, int]) -> int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id)
    return None
