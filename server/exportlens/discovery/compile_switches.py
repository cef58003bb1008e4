"""What a script changes between calls of a compiled model that torch guards (issue 45 point 1):
`model.eval()` / `model.train()`, a dtype (`model.double()`, `model(x.half())`,
`x.to(torch.bfloat16)`), autocast (`with torch.autocast("cpu"): model(x)`) and grad mode
(`with torch.no_grad():` / `torch.inference_mode()` / `torch.set_grad_enabled(False)`), through
any name it goes by (compile_flow.py). The compile check makes the same switches and calls
(worker/job/switch_recompiles.py) and says which recompile.

Torch keeps one compiled version per guarded state, so only a call in a state not called before
can recompile: each such call is one group of switches, the states set since the worker's last
call then the contexts around the call; the last of the group has `call` set. Switches set before
one call are one recompile, as torch makes it (mnist's `test()`: `model.eval()` then
`with torch.no_grad(): model(data)` recompiles once, on grad mode). A switch's line is the line
that makes it, inside the function it is made in (`m.eval()` in `def evaluate(m, loader):`):
where the user changes it.
"""

from __future__ import annotations

import ast
from typing import Any

from .compile_flow import Event, events


def compile_switches(
    tree: ast.Module, names: set[str], first: ast.Call, imports: dict[str, str]
) -> list[dict[str, Any]]:
    """The switch groups of the module bound to one of `names` after its first call `first`:
    {"kind": "mode"|"dtype"|"autocast"|"grad", "value": ..., "line": 1-based, "call": bool}."""
    if isinstance(first.func, ast.Name):
        names = names | {first.func.id}  # the object the script calls (an instance of a compiled class)
    found = events(tree, _holding(tree, first), names, imports)
    start = next((i for i, e in enumerate(found) if e.call is first), None)
    if start is None:
        return []
    state: dict[str, tuple[str, int]] = {}
    for event in found[:start]:  # what the first call sees (`model.eval()` before it)
        if event.call is None:
            state[event.kind] = (event.value, event.line)
    seen = {_key(state, found[start])}
    worker = {kind: value for kind, (value, _line) in state.items()}  # as the worker's first call
    out: list[dict[str, Any]] = []
    for event in found[start + 1 :]:
        if event.call is None:
            if state.get(event.kind, ("",))[0] != event.value:  # the first line that sets it
                state[event.kind] = (event.value, event.line)
            continue
        key = _key(state, event)
        if key in seen:
            continue  # torch compiled this state already: it reuses that version
        seen.add(key)
        group = []
        for kind, (value, line) in _sets(state, event).items():
            if worker.get(kind) != value:
                group.append({"kind": kind, "value": value, "line": line, "call": False})
                worker[kind] = value
        group += [{"kind": k, "value": v, "line": line, "call": False} for k, v, line in event.contexts]
        if group:
            group[-1]["call"] = True
            out += group
    return out


def _sets(state: dict[str, tuple[str, int]], event: Event) -> dict[str, tuple[str, int]]:
    """The persistent states at a call: its inputs' dtype, when it casts them, over the module's."""
    if event.value and state.get("dtype", ("",))[0] != event.value:
        return {**state, "dtype": (event.value, event.line)}
    return state


def _key(state: dict[str, tuple[str, int]], event: Event) -> tuple[Any, ...]:
    sets = _sets(state, event)
    return (
        tuple(sorted((k, v) for k, (v, _line) in sets.items())),
        tuple(sorted({(k, v) for k, v, _line in event.contexts})),
    )


def _holding(tree: ast.Module, first: ast.Call) -> list[ast.stmt]:
    """The block the first call runs in: the function of the file holding it (`def main():`), else
    the top level."""
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            n is first for n in ast.walk(stmt)
        ):
            return stmt.body
    return tree.body
