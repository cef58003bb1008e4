"""Pick the shape guard behind a constraint violation from the worker's `guard_sites`.

torch says *which* Dim broke ("batch became the constant 8", "bx and by must
be equal") but, in non-strict mode, not where; the worker re-ran the export
recording each guard's user frames.  The culprit is the first guard of the
matching shape (equality with a constant, between two symbols, or a bound)
on an input dimension.
"""

from __future__ import annotations

import re
from typing import Any

from .kinds import Kind

_WANTED = {
    "dim-specialized": ("eq-const",),
    "dim-example-too-small": ("eq-const",),
    "dim-range-narrowed": ("range",),
    "dims-must-be-equal": ("eq-sym",),
}
_TEXT_FRAME = re.compile(r'File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<name>\S+)')


def guard_frames(record: dict[str, Any], kind: Kind) -> list[dict[str, Any]]:
    """User frames (outermost first) of the guard that caused the violation, else []."""
    wanted = _WANTED.get(kind.code, ("eq-const", "eq-sym", "range"))
    sites = list(record.get("guard_sites") or [])
    source = str(kind.fix.get("source") or "")
    if kind.fix.get("multiple_of"):
        # A divisibility guard (`Mod(s0, 8) == 0`): the line that splits the size into pieces.
        for site in sites:
            names = [name for names in (site.get("sources") or {}).values() for name in names]
            if "Mod(" in str(site.get("expr")) and site.get("frames"):
                if not source or any(_same_source(source, name) for name in names):
                    return [f for f in site["frames"] if f.get("line")]
    for site in sites:
        if site.get("kind") not in wanted or not site.get("frames"):
            continue
        sources = [name for names in (site.get("sources") or {}).values() for name in names]
        if source and not any(_same_source(source, name) for name in sources):
            continue
        if (
            kind.code == "dim-specialized"
            and str(kind.fix.get("value")) not in str(site.get("expr"))
            and not re.search(r"\d", str(site.get("expr")))
        ):
            continue
        return [f for f in site["frames"] if f.get("line")]
    return _message_stack(record)


def _same_source(a: str, b: str) -> bool:
    """L['x'].size()[0] in the message vs the guard's sources (strict names them flat_args)."""
    return a == b or a.split(".")[-1] == b.split(".")[-1]


def _message_stack(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Strict prints a "User stack:" for some violations: frames without columns."""
    message = str(record.get("message", ""))
    _, found, rest = message.partition("User stack:")
    if not found:
        return []
    rest = rest.split("Suggested fixes:")[0]
    frames = [
        {"path": m["path"], "line": int(m["line"]), "name": m["name"]} for m in _TEXT_FRAME.finditer(rest)
    ]
    return [f for f in frames if "/torch/" not in str(f["path"]) and "site-packages" not in str(f["path"])]
