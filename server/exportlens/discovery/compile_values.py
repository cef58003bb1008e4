"""The arguments a script gives a compiled model a new value each time (issue 45 point 1): a
timestep or scale taken from a loop (`for t in range(T): model(x, t)`), a temperature it anneals
(`temperature *= 0.9`). Only these are varied by the compile check (worker/job/value_recompiles.py):
a number the script never changes costs no recompile, whatever the model does with it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator


def varying_arguments(tree: ast.Module, names: set[str]) -> list[dict[str, object]]:
    """{"argument": position (int) or keyword (str), "line": 1-based call line} for each argument of
    a call of one of `names` that reads a loop's variable or a name the script changes in place; once
    per argument, at its first such call."""
    found: list[dict[str, object]] = []
    seen: set[int | str] = set()
    for call, changing in _calls(tree, names, set()):
        given: list[tuple[int | str, ast.expr]] = [
            *enumerate(call.args),
            *((k.arg, k.value) for k in call.keywords if k.arg),
        ]
        for key, value in given:
            if key not in seen and not isinstance(value, ast.Starred) and _reads(value) & changing:
                seen.add(key)
                found.append({"argument": key, "line": call.lineno})
    return sorted(found, key=lambda f: int(str(f["line"])))


def _calls(node: ast.AST, names: set[str], changing: set[str]) -> Iterator[tuple[ast.Call, set[str]]]:
    """Each call of the compiled model with the names that change where it is: the targets of the
    loops around it and the names its function (or the module) updates with `x op= ...`."""
    if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)):
        changing = changing | _updated(node)
    if isinstance(node, (ast.For, ast.AsyncFor)):
        changing = changing | {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    if isinstance(node, ast.ClassDef):
        return  # a method's calls are the model's own, not the script's
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names:
        yield node, changing
    for child in ast.iter_child_nodes(node):
        yield from _calls(child, names, changing)


def _updated(scope: ast.AST) -> set[str]:
    """Names a scope updates in place (`temperature *= 0.9`), not looking into nested functions."""
    found: set[str] = set()
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            found.add(node.target.id)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _reads(value: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
