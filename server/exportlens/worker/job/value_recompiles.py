"""Recompiles from a Python number the script calls the compiled module with a new value each time
(issue 45 point 1): a timestep or scale from a loop, a temperature it anneals
(discovery/compile_values.py says which arguments).

dynamo guards such an argument on its value. At the first new value torch recompiles it dynamic
(automatic dynamic, `specialize_float` off); code that still needs the constant (`F.dropout(x, p)`,
`range(n)`) pins it, and then every new value recompiles until `recompile_limit`. So each varied
number is called at three values past the first: torch settles a frame in one recompile (and a
frame a graph break resumes in one more), so a recompile at both of the last two says the code pins
it, and where (the guard's user stack; else the script's call that varies it). No remedy is tried:
what removes it is a change to the model's code (a tensor in place of the number), which no
setting proves; the finding says what pins the value and where.
"""

from __future__ import annotations

from typing import Any

from ..wire.compile_records import Recompile
from ..wire.protocol import VaryingArgument
from ..wire.records import Frame
from .state_recompiles import _frames, _guard_text

NEW_VALUES = 3


def value_recompiles(
    compiled: Any, attempt: Any, varying: list[VaryingArgument], limit: int, path: str
) -> list[Recompile]:
    """One record per varied number argument whose new values keep recompiling."""
    from torch._dynamo.utils import guard_failures

    args, kwargs = list(attempt.args), dict(attempt.kwargs or {})
    found: list[Recompile] = []
    for varied in varying:
        key = _key(attempt.module, varied["argument"], args, kwargs)
        if key is None:
            continue
        value: Any = args[key] if isinstance(key, int) else kwargs[key]
        if not _is_number(value):
            continue
        values = _next_values(value)
        guard_failures.clear()
        recompiled: list[list[str]] = []
        try:
            for new in values:
                before = [r for v in guard_failures.values() for r in v]
                compiled(*_with(args, key, new), **_with(kwargs, key, new))
                recompiled.append([str(r) for v in guard_failures.values() for r in v if r not in before])
        except Exception:  # noqa: BLE001, S112 - another value may not be a valid input: nothing to say
            continue
        if not all(recompiled[-2:]):
            continue  # torch settled it: the later values reused a dynamic compile
        name = _argument(attempt.module, key)
        last = recompiled[-1]
        reason = next((r for r in last if f"{name} ==" in r), last[0])
        # the newest version's failure has no user stack; an older one's, on the same guard, has
        stacked = [r for r in (str(x) for v in guard_failures.values() for x in v) if _frames(r)]
        pinned = next((r for r in stacked if f"{name} ==" in r), None)
        call: Frame = {"path": path, "line": varied["line"], "name": "<module>"}
        found.append(
            {
                "reason": _guard_text(reason),
                "dim": "value",
                "sizes": [],
                "values": [value, *values],
                "switch": f"{name}@{varied['line']}",
                "frames": _frames(pinned) if pinned else [call],
                "limit": limit,
            }
        )
    return found


def _key(module: Any, argument: int | str, args: list[Any], kwargs: dict[str, Any]) -> int | str | None:
    """Where the varied argument sits in the first call's inputs: a keyword given by position there
    (or the reverse) is found through the forward's signature."""
    if isinstance(argument, int):
        return argument if argument < len(args) else None
    if argument in kwargs:
        return argument
    names = _parameters(module)
    return names.index(argument) if argument in names and names.index(argument) < len(args) else None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _next_values(value: int | float) -> list[int | float]:
    """Values past the first, near it (a rate stays a rate): +1, +2, ... for an int; +1 %, +2 %, ...
    of its size (at least 0.01) for a float."""
    step = 1 if isinstance(value, int) else 0.01 * max(abs(value), 1.0)
    return [round(value + step * (i + 1), 12) for i in range(NEW_VALUES)]


def _with(container: Any, key: int | str, new: Any) -> Any:
    """The positional list or the keyword dict with `key`'s value replaced (the other one as is)."""
    if isinstance(container, list):
        return [new if i == key else v for i, v in enumerate(container)]
    return {k: (new if k == key else v) for k, v in container.items()}


def _argument(module: Any, key: int | str) -> str:
    """The parameter's name in the forward's signature (`temperature`), or its position."""
    if isinstance(key, str):
        return key
    names = _parameters(module)
    return names[key] if key < len(names) else f"argument {key + 1}"


def _parameters(module: Any) -> list[str]:
    import inspect

    try:
        return list(inspect.signature(getattr(module, "forward", module)).parameters)
    except (TypeError, ValueError):
        return []
