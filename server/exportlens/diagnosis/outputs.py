"""A forward that returns an object torch cannot flatten (a `@dataclass`, a plain class).

torch.export flattens outputs with pytree; a class it does not know stops the export at the end,
after tracing everything ("Found <class 'm.DetectorOutput'> in output, which is not a known type").
The finding belongs on the `return` that builds the object, with what to register.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from .context import DiagnosisContext
from .kinds import Kind
from .locate import Place

CODE = "unflattenable-output"
_NOT_PYTREE_OUTPUT = re.compile(r"Found <class '(?P<type>[\w.]+)'> in outputs?, which is not a known type")


def output_kind(record: dict[str, Any]) -> Kind | None:
    """The kind of a failure that is an unflattenable output, else None."""
    match = _NOT_PYTREE_OUTPUT.search(str(record.get("message", "")))
    if match is None:
        return None
    full = match["type"]
    name = full.rpartition(".")[2]
    hint = (
        f"register `{name}` with torch: `torch.export.register_dataclass({name})` for a dataclass, else "
        f"`torch.utils._pytree.register_pytree_node({name}, flatten, unflatten)`; or return a tuple / "
        f"dict of tensors"
    )
    if "Cache" in name:
        hint = f"export without the cache (`use_cache=False` in the config or call), or {hint}"
    detail = f"`{full}`"
    return Kind(CODE, detail, {"type": full, "class": name, "hint": hint}, where="return")


def return_place(ctx: DiagnosisContext, class_name: str) -> Place | None:
    """The `return` in the module's forward that builds `class_name` (else its last `return`)."""
    if ctx.document.syntax_error is not None:
        return None
    tree = ctx.document.tree
    module = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == ctx.class_name), None)
    forward = next(
        (
            s
            for s in (module.body if module else [])
            if isinstance(s, ast.FunctionDef) and s.name == "forward"
        ),
        None,
    )
    if forward is None:
        return None
    returns = [n for n in ast.walk(forward) if isinstance(n, ast.Return) and n.value is not None]
    building = [r for r in returns if _builds(r.value, class_name)]
    chosen = (building or sorted(returns, key=lambda r: r.lineno))[-1:] if returns else []
    if not chosen:
        return None
    node = chosen[0]
    text = ctx.document.source_text
    line = node.lineno - 1
    end_line = (node.end_lineno or node.lineno) - 1
    end = node.end_col_offset if end_line == line else None
    return Place(
        ctx.path, text.span(line, node.col_offset, line if end is not None else None, end), "forward"
    )


def _builds(value: ast.expr | None, class_name: str) -> bool:
    return (
        any(
            isinstance(n, ast.Call)
            and (getattr(n.func, "id", None) or getattr(n.func, "attr", None)) == class_name
            for n in ast.walk(value)
        )
        if value is not None
        else False
    )
