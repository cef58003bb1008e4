"""Whether a compiled function runs a training step itself (`loss.backward()`, `optimizer.step()`):
the compile check never runs one (docs/compile.md), so such a function is not checked and a
finding says why, with the line (issue 45 point 3: a PPO `update` compiled whole)."""

from __future__ import annotations

import ast

from ..syntax import dotted, resolve

_OPTIMIZERS = ("torch.optim.",)


def training_step(tree: ast.Module, function: str, imports: dict[str, str]) -> tuple[int, str] | None:
    """(1-based line, the call as written) of the first backward or optimizer step in the top-level
    function `function`, else None."""
    func = next(
        (
            f
            for f in tree.body
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name == function
        ),
        None,
    )
    if func is None:
        return None
    optimizers = _optimizer_names(tree, imports)
    calls = sorted(
        (n for n in ast.walk(func) if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset)
    )
    for call in calls:
        target = call.func
        if resolve(dotted(target), imports) == "torch.autograd.backward":
            return call.lineno, ast.unparse(call)[:80]
        if not isinstance(target, ast.Attribute):
            continue
        if target.attr == "backward" or (target.attr == "step" and _is_optimizer(target.value, optimizers)):
            return call.lineno, ast.unparse(call)[:80]
    return None


def _optimizer_names(tree: ast.Module, imports: dict[str, str]) -> set[str]:
    """Names the file binds to `torch.optim.X(...)` (`optimizer = optim.Adam(...)`)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            if (resolve(dotted(node.value.func), imports) or "").startswith(_OPTIMIZERS):
                names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def _is_optimizer(value: ast.expr, optimizers: set[str]) -> bool:
    """`optimizer.step()`, `opt.step()`, `self.optimizer.step()`: bound to an optimizer, or named so."""
    name = value.attr if isinstance(value, ast.Attribute) else value.id if isinstance(value, ast.Name) else ""
    return name in optimizers or "optim" in name.lower() or name in {"opt", "scaler"}
