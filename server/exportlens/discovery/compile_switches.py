"""What a script changes between calls of a compiled model that torch guards (issue 45 point 1):
`model.eval()` / `model.train()`, a dtype (`model.double()`, `model(x.half())`,
`x.to(torch.bfloat16)`) and autocast (`with torch.autocast("cpu"): model(x)`). Each after the first
call, in file order, with its line: the compile check makes the same switches (worker/job/
switch_recompiles.py) and says which recompile, on the line whose guard failed.
"""

from __future__ import annotations

import ast
from typing import Any

from ..syntax import dotted, resolve

_DTYPE_METHODS = {"double": "float64", "half": "float16", "bfloat16": "bfloat16", "float": "float32"}
_DTYPES = {
    "float64": "float64",
    "double": "float64",
    "float16": "float16",
    "half": "float16",
    "bfloat16": "bfloat16",
    "float32": "float32",
    "float": "float32",
}
_AUTOCAST = {"torch.autocast", "torch.amp.autocast", "torch.cpu.amp.autocast", "torch.cuda.amp.autocast"}


def compile_switches(
    tree: ast.Module, names: set[str], after: int, imports: dict[str, str]
) -> list[dict[str, Any]]:
    """The switches of the module bound to one of `names` made after line `after`, in file order:
    {"kind": "mode"|"dtype"|"autocast", "value": ..., "line": 1-based}. A dtype or mode counts once:
    the first line that sets it."""
    found: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for node in sorted(_nodes(tree), key=lambda n: (n.lineno, n.col_offset)):
        if node.lineno <= after:
            continue
        switch = _switch(node, names, imports)
        if switch is not None and (switch["kind"], switch["value"]) not in seen:
            seen.add((switch["kind"], switch["value"]))
            found.append({**switch, "line": node.lineno})
    return found


def _nodes(tree: ast.Module) -> list[Any]:
    """Calls and `with` statements outside class bodies (a method's `self.eval()` is not the script's)."""
    out: list[Any] = []
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.ClassDef):
            continue
        if isinstance(node, (ast.Call, ast.With)):
            out.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return out


def _switch(node: ast.AST, names: set[str], imports: dict[str, str]) -> dict[str, Any] | None:
    if isinstance(node, ast.With):
        return _autocast(node, names, imports)
    assert isinstance(node, ast.Call)
    func = node.func
    if isinstance(func, ast.Name) and func.id in names:  # `model(x.double())`: an input's dtype
        dtype = next((d for a in ast.walk(node) if a is not node and (d := _cast(a))), None)
        return {"kind": "dtype", "value": dtype} if dtype else None
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in names):
        return None
    if func.attr == "eval" and not node.args:
        return {"kind": "mode", "value": "eval"}
    if func.attr == "train":
        flag = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "mode"), None)
        off = isinstance(flag, ast.Constant) and flag.value is False
        return {"kind": "mode", "value": "eval" if off else "train"}
    dtype = _cast(node)
    return {"kind": "dtype", "value": dtype} if dtype else None


def _cast(node: ast.AST) -> str | None:
    """`t.double()` / `t.half()` / `t.to(torch.float16)` / `t.to(dtype=torch.bfloat16)`: the dtype."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    if node.func.attr in _DTYPE_METHODS and not node.args and not node.keywords:
        return _DTYPE_METHODS[node.func.attr]
    if node.func.attr == "to":
        values = [*node.args, *(k.value for k in node.keywords if k.arg == "dtype")]
        return next((d for v in values if (d := _dtype(v))), None)
    return None


def _dtype(value: ast.expr | None) -> str | None:
    """`torch.float16` -> "float16"; None for anything else."""
    if isinstance(value, ast.Attribute) and dotted(value.value) == "torch":
        return _DTYPES.get(value.attr)
    return None


def _autocast(node: ast.With, names: set[str], imports: dict[str, str]) -> dict[str, Any] | None:
    """`with torch.autocast(...)` around a call of the compiled model: the dtype it says ("" for the
    device's default)."""
    calls = [
        n
        for stmt in node.body
        for n in ast.walk(stmt)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in names
    ]
    if not calls:
        return None
    for item in node.items:
        call = item.context_expr
        if isinstance(call, ast.Call) and resolve(dotted(call.func), imports) in _AUTOCAST:
            dtype = next((k.value for k in call.keywords if k.arg == "dtype"), None)
            if dtype is None and len(call.args) > 1:
                dtype = call.args[1]
            value = _dtype(dtype) or ""
            return {"kind": "autocast", "value": value}
    return None
