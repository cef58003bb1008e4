"""A compile check in the child: the graph breaks and recompiles `torch.compile` would meet.

Loading the user's file never compiles (`without_compile`): `torch.compile(model)` gives back the
model itself, `model.compile()` does nothing, `@torch.compile` leaves the function as it is, so a
script that compiles and calls its model at the top level costs what its eager code costs, never an
Inductor build. The check then compiles the module as the user's code does, with a backend that
compiles nothing (it runs the traced graph as is), and calls it with the user's inputs: the graphs
are the backend's calls, each break the exception dynamo logs for it (`log_graph_break`: torch's own
type, explanation, hints, link and the user's stack). Then the recompile pass, on the same compiled
module: called again with the batch dim changed twice, as a user's next batches would. The first
change recompiles with the dim dynamic (torch's automatic dynamic shapes); a recompile at the second
says the code specialises on the size, and where (the shape guard the dynamic compile added that
pins the size) is read from the shape env.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from ..capture.compile_breaks import breaks, breaks_told, explained, listening
from ..core.budget import Budget, OutOfBudget
from ..wire.compile_records import CompileReport, Recompile
from ..wire.protocol import CompileSpec
from ..wire.records import Frame

_USER_LOC = re.compile(r"#\s*(?P<path>\S.*?):(?P<line>\d+) in (?P<name>[\w<>]+)\s*$")


@contextmanager
def without_compile() -> Iterator[None]:
    """While the user's file loads and its inputs are built, `torch.compile` and `Module.compile`
    build nothing; torch's own afterwards, so torch's internal compiles (non-strict `torch.cond`
    traces its branches through torch.compile) and the check's are never the stand-in."""
    import torch

    real, real_method = torch.compile, torch.nn.Module.compile

    def compile_nothing(model: Any = None, **_options: Any) -> Any:
        if model is None:  # `@torch.compile(...)`: a decorator that leaves the function alone
            return lambda fn: fn
        return model

    def module_compile(self: Any, *_args: Any, **_kwargs: Any) -> None:
        return None

    torch.compile = compile_nothing  # type: ignore[assignment]
    torch.nn.Module.compile = module_compile  # type: ignore[method-assign]
    try:
        yield
    finally:
        torch.compile = real
        torch.nn.Module.compile = real_method  # type: ignore[method-assign]


def compile_check(attempt: Any, spec: CompileSpec, budget: Budget) -> CompileReport:
    """One compile, as the user's: the first call's graphs and breaks, then the recompile pass."""
    import torch

    graphs: list[Any] = []
    pinned: list[tuple[str, Frame | None]] = []  # (the size's source, where a compile pinned it)

    def backend(gm: Any, _example_inputs: Any) -> Any:  # compiles nothing: runs the traced graph
        graphs.append(gm)
        pinned.extend(_pins())
        return gm.forward

    told: list[BaseException] = []
    listens = listening()
    try:
        with budget.bounded(0.6):
            found = None if listens else explained(attempt)  # before the compile: it resets dynamo
            torch._dynamo.reset()
            compiled: Any = torch.compile(attempt.module, backend=backend, dynamic=spec["dynamic"])
            with breaks_told(told) if listens else nullcontext():
                compiled(*attempt.args, **(attempt.kwargs or {}))
        report: CompileReport = {
            "fullgraph": spec["fullgraph"],
            "graphs": len(graphs),
            "breaks": breaks(told) if found is None else found,
            "recompiles": [],
        }
        try:
            with budget.bounded():
                report["recompiles"] = _recompiles(compiled, attempt, pinned)
        except OutOfBudget:
            report["recompile_error"] = "the job's time ran out"
        except Exception as exc:  # noqa: BLE001 - other sizes may not be valid inputs: nothing to say
            report["recompile_error"] = f"{type(exc).__name__}: {exc}"[:500]
    finally:
        torch._dynamo.reset()
    return report


class StillBreaks(Exception):
    """A fix's candidate still breaks the graph where the fix was meant to remove the break."""


def compiled_without_break(attempt: Any, spec: CompileSpec, lines: list[int], path: str) -> Any:
    """A fix's proof (worker/job/verify.py): the candidate module compiled as the user's code does and
    called on the example; raises StillBreaks when dynamo breaks the graph on one of `lines` of `path`.
    The compiled module is returned for the comparison with eager mode."""
    import torch

    def backend(gm: Any, _example_inputs: Any) -> Any:
        return gm.forward

    told: list[BaseException] = []
    listens = listening()
    found = None if listens else explained(attempt)
    torch._dynamo.reset()
    compiled: Any = torch.compile(attempt.module, backend=backend, dynamic=spec["dynamic"])
    with breaks_told(told) if listens else nullcontext():
        compiled(*attempt.args, **(attempt.kwargs or {}))
    for met in breaks(told) if found is None else found:
        here = [f for f in met["frames"] if f["path"] == path]
        if here and here[-1]["line"] in lines:
            what = met.get("gb_type") or "a graph break"
            raise StillBreaks(f"torch.compile still breaks the graph on line {here[-1]['line']}: {what}")
    return compiled


def _recompiles(compiled: Any, attempt: Any, pinned: list[tuple[str, Frame | None]]) -> list[Recompile]:
    """Call the compiled module as a user's next batches would: the batch dim + 1, then + 2; then, for
    token ids (a 2-D integer tensor), the sequence dim the same way."""
    from torch._dynamo.utils import guard_failures

    tensors = _tensors(attempt.args, attempt.kwargs)
    if not tensors:
        return []
    tokens = next(
        (t for t in tensors if t.dim() == 2 and not t.is_floating_point() and t.shape[1] >= 1), None
    )
    dims = [(0, int(tensors[0].shape[0]))] + ([(1, int(tokens.shape[1]))] if tokens is not None else [])
    found: list[Recompile] = []
    for dim, size in dims:
        guard_failures.clear()
        sizes = [size]
        for grow in (1, 2):
            args = _grown(attempt.args, grow, dim, size)
            kwargs = _grown(attempt.kwargs or {}, grow, dim, size)
            before = sum(len(v) for v in guard_failures.values())
            if grow == 1:
                pinned.clear()  # what the compile at the second size pins is what fails at the third
            compiled(*args, **kwargs)
            sizes.append(size + grow)
            failed = [r for v in guard_failures.values() for r in v][before:]
            if grow == 2 and failed:
                where = next((f for _source, f in pinned if f is not None), None)
                frames = [where] if where else []
                found.append(
                    {"reason": str(failed[0]), "dim": f"shape[{dim}]", "sizes": sizes, "frames": frames}
                )
    return found


def _pins() -> list[tuple[str, Frame | None]]:
    """The input sizes this compile pinned to a constant (`Eq(s0, 3)`), with the user's line."""
    import torch

    context = torch._guards.TracingContext.try_get()
    shape_env = getattr(getattr(context, "fake_mode", None), "shape_env", None)
    if shape_env is None:
        return []
    found: list[tuple[str, Frame | None]] = []
    for guard in getattr(shape_env, "guards", []):
        expr = guard.expr
        if type(expr).__name__ != "Equality" or not any(a.is_Integer for a in expr.args):
            continue
        sources = [s.name for sym in expr.free_symbols for s in shape_env.var_to_sources.get(sym, [])]
        found.append(
            (", ".join(str(s) for s in sources), _user_frame(getattr(guard.sloc, "maybe_user_loc", None)))
        )
    return found


def _user_frame(loc: str | None) -> Frame | None:
    """`rows = ...  # path:13 in forward` (torch shortens the path): the frame, the path left to match."""
    match = _USER_LOC.search(loc or "")
    if match is None:
        return None
    return {"path": match["path"], "line": int(match["line"]), "name": match["name"]}


def _tensors(args: Any, kwargs: Any) -> list[Any]:
    import torch

    values = list(args) + list((kwargs or {}).values())
    return [v for v in values if isinstance(v, torch.Tensor) and v.dim() >= 1 and v.shape[0] >= 1]


def _grown(value: Any, extra: int, dim: int = 0, size: int = 0) -> Any:
    """Each tensor of the inputs whose `dim` is `size` with `extra` more along it (copies of its
    first slice), the rest as is."""
    import torch

    if isinstance(value, torch.Tensor) and value.dim() > dim and value.shape[dim] == size and extra:
        first = value.narrow(dim, 0, 1)
        return torch.cat([value, *([first] * extra)], dim=dim)
    if isinstance(value, tuple):
        return tuple(_grown(v, extra, dim, size) for v in value)
    if isinstance(value, list):
        return [_grown(v, extra, dim, size) for v in value]
    if isinstance(value, dict):
        return {k: _grown(v, extra, dim, size) for k, v in value.items()}
    return value
