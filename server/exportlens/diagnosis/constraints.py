"""Constraint violations (torch's "Constraints violated" of a Dim): which one, from torch's wording.

torch reports them as one `UserError` (CONSTRAINT_VIOLATION) whatever broke; its sentence says
what: a Dim specialised to a constant, a range narrowed by a shape test, two Dims that must be
equal, an example outside its range.  Unknown wording is `dim-specialized` with torch's first line.
"""

from __future__ import annotations

import re
from typing import Any

from .kind import Kind, first_line, suggested_fixes

_SPECIALIZED = re.compile(
    r"You marked (?P<dim>\w+) as dynamic but your code specialized it to be a constant "
    r"\((?P<value>-?\d+)\)"
)
_NARROWED = re.compile(r"Not all values of (?P<dim>\w+) = (?P<source>.+?) in the specified range")
_EQUAL = re.compile(
    r"The values of (?P<dim>\w+) = (?P<source>\S+) and (?P<other>\w+) = (?P<other_source>\S+) "
    r"must always be equal"
)
OUT_OF_RANGE = re.compile(
    r"(?P<value>-?\d+) not in range \[(?P<min>[^,\]]+), (?P<max>[^\]]+)\]"
    r"|(?P<input>\S+) is outside of specified dynamic range \[(?P<min2>[^,\]]+), "
    r"(?P<max2>[^\]]+)\]|Guard failed: (?P<guard>.+)"
)
_MULTIPLE = re.compile(r"^(?P<dim>\w+) = (?P<factor>\d+)\*(?P<base>\w+)$")


def constraint(message: str) -> Kind:
    fixes = suggested_fixes(message)
    if m := _SPECIALIZED.search(message):
        dim, value = m["dim"], int(m["value"])
        if value in (0, 1):
            return Kind(
                "dim-example-too-small",
                f"`{dim}` became the constant {value}",
                {"dim": dim, "value": value, "suggested": fixes},
                where="guard",
            )
        return Kind(
            "dim-specialized",
            f"`{dim}` became the constant {value}",
            {"dim": dim, "value": value, "suggested": fixes},
            where="guard",
        )
    if m := _NARROWED.search(message):
        fix: dict[str, Any] = {"dim": m["dim"], "source": m["source"], "suggested": fixes}
        detail = f"not every value of `{m['dim']}` passes the code's shape test"
        multiple = next((d for d in map(_MULTIPLE.match, fixes) if d and d["dim"] == m["dim"]), None)
        if multiple:
            # Patches / heads / reshapes: the size must divide evenly (torch: `h = 8*_h`).
            detail = f"`{m['dim']}` must be a multiple of {multiple['factor']}"
            fix["multiple_of"] = int(multiple["factor"])
            fix["hint"] = (
                f"declare `{m['dim']}` as a multiple of {multiple['factor']} "
                f"(`{multiple['base']} = Dim(...)`, `{m['dim']} = {multiple['factor']}*{multiple['base']}`), "
                "and give an example size that is one"
            )
        return Kind("dim-range-narrowed", detail, fix, where="guard")
    if m := _EQUAL.search(message):
        return Kind(
            "dims-must-be-equal",
            f"`{m['dim']}` and `{m['other']}` must always be equal",
            {"dim": m["dim"], "other": m["other"], "suggested": fixes},
            where="guard",
        )
    if m := OUT_OF_RANGE.search(message):
        low, high = m["min"] or m["min2"], m["max"] or m["max2"]
        detail = m.group(0)
        return Kind(
            "example-outside-dim-range",
            detail,
            {"value": m["value"], "min": low, "max": high, "guard": m["guard"]},
            where="args",
        )
    return Kind("dim-specialized", first_line(message), {"suggested": fixes}, where="guard")
