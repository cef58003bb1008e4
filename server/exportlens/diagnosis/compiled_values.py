"""The message of a recompile at each new value of a number argument (worker/job/value_recompiles.py):
what pins the value and where. No fix is offered: none is proven (what removes it is a change to the
model's code), and torch's settings do not help once code needs the constant."""

from __future__ import annotations

from ..worker.wire.compile_records import Recompile


def value_text(raw: Recompile, label: str, placed: bool, limit_text: str) -> str:
    values = ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in raw.get("values") or [])
    name, _, line = str(raw.get("switch", "")).rpartition("@")
    message = (
        f"torch.compile: {label} recompiles for each new value of `{name}`, which the script changes "
        f"between calls (line {line}; checked with {values}): torch's guard failed: "
        f"{raw.get('reason', '')}. torch makes a changing Python number dynamic after one recompile, but "
    )
    message += (
        "this line needs it as a constant, so every new value compiles again. "
        if placed
        else "the code needs it as a constant, so every new value compiles again. "
    )
    return (message + limit_text).rstrip()
