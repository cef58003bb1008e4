"""A library's own configuration that avoids a graph break inside it (issue 45 point 3):
transformers' `logger.warning_once("`use_cache=True` is incompatible with gradient checkpointing")`
runs on every training forward of a model with gradient checkpointing and the config's default
`use_cache=True`; transformers then turns the cache off itself. Saying so first, `model.config.
use_cache = False` before the compile, is the fix transformers' own message asks for; it is offered
only as a candidate, proven as any compile fix (no break at the library's frame, matches eager).
`use_reentrant=False` checkpointing was measured (transformers 5.25.0, torch 2.13): it still breaks
there, so it is not offered.
"""

from __future__ import annotations

import ast
from typing import Any

from ..document import Document
from .edits import Edit, indent_of
from .model import Fix

_TRANSFORMERS = "/transformers/"


def use_cache_fix(doc: Document, line: int, code: str, site: list[Any]) -> Fix | None:
    """`model.config.use_cache = False` before `compiled = torch.compile(model)`, for the compiled
    model called on 0-based `line`, when the break is in transformers and the file turns on gradient
    checkpointing for that model."""
    if not (site and _TRANSFORMERS in str(site[0]).replace("\\", "/")):
        return None
    called = _called_name(doc, line)
    binding = _compile_binding(doc, called) if called else None
    if binding is None:
        return None
    stmt, model = binding
    if not _checkpoints(doc, model):
        return None
    lines = doc.text.splitlines(keepends=True)
    first = stmt.lineno - 1
    config = f"{model}.config.use_cache = False"
    edit = Edit(first, first, f"{indent_of(lines[first])}{config}\n")
    return Fix(f"Turn transformers' cache off before compiling: `{config}`", code, "library-config", [edit])


def _called_name(doc: Document, line: int) -> str | None:
    """The name called on 0-based `line` (`outputs = compiled(**batch)` -> `compiled`)."""
    for node in ast.walk(doc.tree):
        if isinstance(node, ast.Call) and node.lineno == line + 1 and isinstance(node.func, ast.Name):
            return node.func.id
    return None


def _compile_binding(doc: Document, name: str) -> tuple[ast.stmt, str] | None:
    """`name = torch.compile(model, ...)` (model: a name) or `name.compile()`: the statement and
    the model's name."""
    for stmt in ast.walk(doc.tree):
        if not isinstance(stmt, (ast.Assign, ast.Expr)) or not isinstance(stmt.value, ast.Call):
            continue
        call = stmt.value
        func = call.func
        if isinstance(stmt, ast.Assign):
            bound = [t.id for t in stmt.targets if isinstance(t, ast.Name)]
            is_compile = isinstance(func, ast.Attribute) and func.attr == "compile"
            if bound == [name] and is_compile and call.args and isinstance(call.args[0], ast.Name):
                return stmt, call.args[0].id
        elif isinstance(func, ast.Attribute) and func.attr == "compile" and isinstance(func.value, ast.Name):
            if func.value.id == name:
                return stmt, name
    return None


def _checkpoints(doc: Document, model: str) -> bool:
    """`model.gradient_checkpointing_enable(...)` somewhere in the file."""
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "gradient_checkpointing_enable"
        and isinstance(n.func.value, ast.Name)
        and n.func.value.id == model
        for n in ast.walk(doc.tree)
    )
