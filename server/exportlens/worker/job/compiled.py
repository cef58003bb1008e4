"""A compile check in the child: the graph breaks and recompiles `torch.compile` would meet.

Loading the user's file never compiles (`without_compile`): `torch.compile(model)` gives back the
model itself, `model.compile()` does nothing, `@torch.compile` leaves the function as it is, so a
script that compiles and calls its model at the top level costs what its eager code costs, never an
Inductor build. The check then compiles the module as the user's code does, with a backend that
compiles nothing (it runs the traced graph as is), and calls it with the user's inputs: the graphs
are the backend's calls, each break the exception dynamo logs for it (`log_graph_break`: torch's own
type, explanation, hints, link and the user's stack). Then the recompile pass on the same compiled
module, and the proof of each remedy (recompiles.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from ..capture.compile_breaks import breaks, breaks_told, explained, listening
from ..core.budget import Budget, OutOfBudget
from ..wire.compile_records import CompileReport
from ..wire.protocol import CompileSpec
from ..wire.records import Frame
from .recompiles import pins, prove_remedies, recompile_limit, recompiles
from .state_recompiles import prove_state_remedies, state_recompiles
from .switch_recompiles import switch_recompiles
from .value_recompiles import value_recompiles


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


def compile_check(attempt: Any, spec: CompileSpec, budget: Budget, path: str = "") -> CompileReport:
    """One compile, as the user's: the first call's graphs and breaks, then the recompile pass,
    then the script's own switches (`model.eval()`, a dtype) on the same compiled module."""
    import torch

    graphs: list[Any] = []
    pinned: list[tuple[str, Frame | None]] = []  # (the size's source, where a compile pinned it)

    def backend(gm: Any, _example_inputs: Any) -> Any:  # compiles nothing: runs the traced graph
        graphs.append(gm)
        pinned.extend(pins())
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
            with budget.bounded(0.6):
                # the module's own state first: a counter changing each call confounds the sizes' pass
                state = state_recompiles(compiled, attempt, recompile_limit())
                sized = [] if state else recompiles(compiled, attempt, pinned)
                valued = (
                    []
                    if state
                    else value_recompiles(compiled, attempt, spec.get("varying", []), recompile_limit(), path)
                )
                # before any remedy's compile resets dynamo; a state changing each call confounds them too
                switched = (
                    [] if state else switch_recompiles(compiled, attempt, spec.get("switches", []), path)
                )
            report["recompiles"] = state or sized + valued + switched
            if state:
                with budget.bounded(0.5):
                    prove_state_remedies(attempt, state)
            else:
                prove_remedies(attempt, sized, budget)
        except OutOfBudget:
            report["recompile_error"] = "the job's time ran out"
        except Exception as exc:  # noqa: BLE001 - other sizes may not be valid inputs: nothing to say
            report["recompile_error"] = f"{type(exc).__name__}: {exc}"[:500]
    finally:
        torch._dynamo.reset()
    return report


class StillBreaks(Exception):
    """A fix's candidate still breaks the graph where the fix was meant to remove the break."""


def compiled_without_break(
    attempt: Any, spec: CompileSpec, lines: list[int], path: str, site: list[str | int] | None = None
) -> Any:
    """A fix's proof (worker/job/verify.py): the candidate module compiled as the user's code does and
    called on the example; raises StillBreaks when dynamo breaks the graph on one of `lines` of `path`,
    or at `site` (a library's [path, line]). The compiled module is returned for the comparison with
    eager mode."""
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
        what = met.get("gb_type") or "a graph break"
        if here and here[-1]["line"] in lines:
            raise StillBreaks(f"torch.compile still breaks the graph on line {here[-1]['line']}: {what}")
        if site and any([f["path"], f["line"]] == site for f in met["frames"]):
            raise StillBreaks(f"torch.compile still breaks the graph at {site[0]}:{site[1]}: {what}")
    return compiled
