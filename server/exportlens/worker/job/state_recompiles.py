"""Recompiles that no input causes: the compiled module called again on the same inputs, as the next
steps of a loop would, with the Python state its own forward leaves (a step counter `self.step += 1`,
a global it rebinds, a list it appends to). When each such call recompiles, a guard on that state
fails every time, so the frame reaches `recompile_limit` and runs eagerly from then on.

torch's guard failure names the guarded expression and, since 2.10, the user's stack where the guard
was made ("User stack trace: File ..., line N"); that line is where the finding goes.  A remedy is
proven as recompiles.py proves one: torch's own knob for an int attribute
(`allow_unspec_int_on_nn_module`) on a fresh compile at the same calls, with no recompile after the
second call (the one that makes the value dynamic) and the outputs of eager's at the same step (a
copy of the module advanced as many calls).
"""

from __future__ import annotations

import copy
import re
from typing import Any

from ..wire.compile_records import Recompile
from ..wire.records import Frame

CALLS = 3  # calls after the first with the same inputs: each recompiling says the state changes each call
_USER_FRAME = re.compile(r'File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<name>\S+)')
_HINT = re.compile(r"\(HINT: (?P<hint>.*?)\)\s*(?:$|\n)", re.S)
INT_ATTRIBUTE = "allow_unspec_int_on_nn_module"


def state_recompiles(compiled: Any, attempt: Any, limit: int) -> list[Recompile]:
    """The recompile the module's own state causes, once (its first guard), or none."""
    from torch._dynamo.utils import guard_failures

    guard_failures.clear()
    failures: list[str] = []
    for _ in range(CALLS):
        before = [r for v in guard_failures.values() for r in v]
        compiled(*attempt.args, **(attempt.kwargs or {}))
        new = [str(r) for v in guard_failures.values() for r in v if r not in before]
        if not new:
            return []  # one call without a recompile: the state settles (a first-call cache fill)
        failures.append(new[0])
    reason = failures[0]
    found: Recompile = {
        "reason": _guard_text(reason),
        "dim": "state",
        "sizes": [],
        "frames": _frames(reason),
        "limit": limit,
    }
    if hint := _HINT.search(reason):
        found["hint"] = " ".join(hint["hint"].split())
    return [found]


def prove_state_remedies(attempt: Any, found: list[Recompile]) -> None:
    """torch's knob for an int attribute, on a fresh compile at the same calls: "" when proven."""
    for recompile in found:
        if INT_ATTRIBUTE in str(recompile.get("hint", "")):
            recompile["tried"] = {INT_ATTRIBUTE: _try_int_attribute(attempt)}


def _try_int_attribute(attempt: Any) -> str:
    import torch
    from torch._dynamo.utils import guard_failures

    from .same_values import same_values

    compiled_copy, eager_copy = copy.deepcopy(attempt.module), copy.deepcopy(attempt.module)
    torch._dynamo.reset()
    guard_failures.clear()
    try:
        with torch._dynamo.config.patch(INT_ATTRIBUTE, True):
            compiled: Any = torch.compile(compiled_copy, backend=lambda gm, _inputs: gm.forward)
            counts = []
            for _ in range(CALLS + 1):
                got = compiled(*attempt.args, **(attempt.kwargs or {}))
                with torch.no_grad():
                    expected = eager_copy(*attempt.args, **(attempt.kwargs or {}))
                counts.append(sum(len(v) for v in guard_failures.values()))
        if counts[-1] != counts[1]:  # one recompile, as the value turns dynamic, is torch's way; more is not
            return "still recompiles on every call"
        return "" if same_values(got, expected) else "recompiles no more, but its outputs differ from eager"
    except Exception as exc:  # noqa: BLE001 - what torch raises for it is the answer
        return f"makes torch raise {type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}"[:300]
    finally:
        torch._dynamo.reset()


def _guard_text(reason: str) -> str:
    """`0/0: s.step == 0   # s.step += 1  # mp/x.py:8 in forward (HINT ...)` -> `s.step == 0`."""
    first = reason.splitlines()[0] if reason else ""
    return first.split(": ", 1)[-1].split("#")[0].strip() or first[:200]


def _frames(reason: str) -> list[Frame]:
    """The user's stack torch printed under the reason, outermost first."""
    stack = reason.split("User stack trace:", 1)[-1] if "User stack trace:" in reason else ""
    return [
        {"path": m["path"], "line": int(m["line"]), "name": m["name"]} for m in _USER_FRAME.finditer(stack)
    ]
