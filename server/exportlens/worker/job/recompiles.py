"""The recompile pass of a compile check (compiled.py), and the proof of what would remove one.

The compiled module is called as a user's next batches would: the batch dim + 1, then + 2; then,
for token ids (a 2-D integer tensor), the sequence dim the same way. The first change recompiles
with the dim dynamic (torch's automatic dynamic shapes); a recompile at the second says the code
specialises on the size, and where (the shape guard the dynamic compile added) is read from the
shape env. Then each remedy torch offers for it is tried on a fresh compile at the same calls
(`dynamic=True`, `maybe_mark_dynamic`, `mark_dynamic`): one is proven only if nothing recompiles
and the outputs match eager; otherwise what torch did instead is kept, so the finding never
advises what torch refuses or ignores (issue 45: mamba's `for i in range(l)`).
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

from ..core.budget import Budget, OutOfBudget
from ..wire.compile_records import Recompile
from ..wire.records import Frame

_USER_LOC = re.compile(r"#\s*(?P<path>\S.*?):(?P<line>\d+) in (?P<name>[\w<>]+)\s*$")
REMEDIES = ("dynamic=True", "maybe_mark_dynamic", "mark_dynamic")


def recompiles(compiled: Any, attempt: Any, pinned: list[tuple[str, Frame | None]]) -> list[Recompile]:
    """The recompiles of `compiled` at growing sizes of each input dim a loop would vary."""
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
            args, kwargs = (
                _grown(attempt.args, grow, dim, size),
                _grown(attempt.kwargs or {}, grow, dim, size),
            )
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
                    {
                        "reason": str(failed[0]),
                        "dim": f"shape[{dim}]",
                        "sizes": sizes,
                        "frames": frames,
                        "limit": recompile_limit(),
                    }
                )
    return found


def prove_remedies(attempt: Any, found: list[Recompile], budget: Budget) -> None:
    """For each recompile, each remedy on a fresh compile: "" when proven, else what torch did.
    After every dim was measured: a remedy's compile resets dynamo, which the pass needs intact."""
    for recompile in found:
        dim, size = int(recompile["dim"][6:-1]), recompile["sizes"][0]
        tried: dict[str, str] = {}
        for remedy in REMEDIES:
            if not budget.fits(3.0):
                break
            try:
                with budget.bounded(0.5):
                    tried[remedy] = _try(attempt, dim, size, remedy)
            except OutOfBudget:
                break
        recompile["tried"] = tried


def _try(attempt: Any, dim: int, size: int, remedy: str) -> str:
    import torch
    from torch._dynamo.utils import guard_failures

    from .same_values import same_values

    torch._dynamo.reset()
    guard_failures.clear()
    compiled: Any = torch.compile(
        attempt.module, backend=_graph_as_is, dynamic=True if remedy == "dynamic=True" else None
    )
    try:
        for grow in (0, 1, 2):
            args, kwargs = (
                _grown(attempt.args, grow, dim, size),
                _grown(attempt.kwargs or {}, grow, dim, size),
            )
            if remedy != "dynamic=True":
                mark: Any = getattr(torch._dynamo, remedy)
                for tensor in _tensors(args, kwargs):
                    if tensor.dim() > dim and tensor.shape[dim] == size + grow:
                        mark(tensor, dim)
            got = compiled(*args, **kwargs)
        if guard_failures:
            return "still recompiles"
        with torch.no_grad():
            expected = attempt.module(*args, **kwargs)
        return "" if same_values(got, expected) else "recompiles no more, but its outputs differ from eager"
    except Exception as exc:  # noqa: BLE001 - what torch raises for it is the answer
        lines = str(exc).splitlines() or [""]
        first = next((line for line in lines if "specialized" in line), lines[0]).strip(" -")
        return f"makes torch raise {type(exc).__name__}: {first.split('. ')[0]}"[:300]
    finally:
        torch._dynamo.reset()


def _graph_as_is(gm: Any, _example_inputs: Any) -> Any:
    return gm.forward


def recompile_limit() -> int:
    from torch._dynamo import config

    return int(getattr(config, "recompile_limit", getattr(config, "cache_size_limit", 8)))


def pins() -> list[tuple[str, Frame | None]]:
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
    """`for i in range(l):  # mp/mamba/model.py:317 in selective_scan`: torch keeps only the path's
    tail, so it is matched against the files this child imported (the model's own file, wherever
    the compile call is); left as torch wrote it when none or several end so."""
    match = _USER_LOC.search(loc or "")
    if match is None:
        return None
    tail = match["path"]
    loaded = {
        os.path.abspath(f)
        for m in list(sys.modules.values())
        if isinstance(f := getattr(m, "__file__", None), str) and f.endswith(tail)
    }
    path = loaded.pop() if len(loaded) == 1 else tail
    return {"path": path, "line": int(match["line"]), "name": match["name"]}


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
