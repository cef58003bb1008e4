"""Constraint violations (torch's "Constraints violated" of a Dim): which one, from torch's wording.

torch reports them as one `UserError` (CONSTRAINT_VIOLATION) whatever broke; its sentence says
what: a Dim specialised to a constant, a range narrowed by a shape test, two Dims that must be
equal, an example outside its range.  Unknown wording is `dim-specialized` with torch's first line.
"""

from __future__ import annotations

import re
from typing import Any

from ..worker.wire.records import FailureRecord
from .guard_value import exact_at, only_values, passes, printed_guards
from .kind import Kind, first_line, quoted_names, suggested_fixes

_SPECIALIZED = re.compile(
    r"You marked (?P<dim>\w+) as dynamic but your code specialized it to be a constant "
    r"\((?P<value>-?\d+)\)"
)
# A range the solver shrinks to one value: "Not all values ..." lines come first, but the Dim is a constant.
_FORCED = re.compile(
    r"solving the guards generated for (?:(?P<dim>\w+) = )?(?P<source>.+?) "
    r"resulted in a specialized value of (?P<value>-?\d+)"
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
# A guard through float arithmetic on a size, as torch prints it.
_FLOAT = re.compile(r"sym_float|ToFloat|FloatTrueDiv|\d\.\d|[^/]/[^/]")
_MULTIPLE = re.compile(r"^(?P<dim>\w+) = (?P<factor>\d+)\*(?P<base>\w+)$")


def sizes_left(message: str, dim: str, guards: list[str]) -> dict[str, Any] | None:
    """Of the range torch printed for `dim` (`seq <= 32`), the sizes its failing guards pass, when
    they are one run (`seq != 32`: 2 to 31): what the Dim's range can be, read from torch's own
    guard (torch suggests no fix for such a guard). None when the range is unbounded or the sizes
    are not one run."""
    m = re.search(rf"values of {dim} = \S+ in the specified range (?P<range>.+?) satisfy", message)
    if m is None or not guards:
        return None
    low = re.search(rf"(-?\d+) <= {dim}\b", m["range"])
    high = re.search(rf"\b{dim} <= (\d+)", m["range"])
    start = max(int(low[1]) if low else 2, 2)  # 0 and 1 are never dynamic sizes
    if high is None or int(high[1]) - start > 4096:
        return None
    ok = [v for v in range(start, int(high[1]) + 1) if all(passes(g, v) is True for g in guards)]
    if not ok or ok != list(range(ok[0], ok[-1] + 1)):
        return None
    return {"range": m["range"], "min": ok[0], "max": ok[-1], "declared": [start, int(high[1])]}


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
    if m := _FORCED.search(message):
        # torch's fix is `frames = 64`: the guards leave one value, whatever range they print.
        dim, value = m["dim"] or m["source"], int(m["value"])
        return Kind(
            "dim-specialized",
            f"`{dim}` can only be {value}, the one size the code's shape tests leave",
            {"dim": dim, "value": value, "source": m["source"], "suggested": fixes},
            where="guard",
        )
    printed = printed_guards(message)
    for dim, source, guard in printed:
        # An equality only a few sizes pass (`(rows // 2) == 3`): a constant, whatever torch suggests.
        # Not one through float arithmetic (DINOv2's `(0.1 + sym_float(h // 14)) / 4.0 == 1.025`):
        # torch exports with the fix it suggests and keeps that one as a runtime assertion.
        if _FLOAT.search(guard):
            continue
        others = [g for d, _, g in printed if d == dim]
        values = [v for v in only_values(guard) if all(passes(g, v) is not False for g in others)]
        if len(values) == 1:  # several sizes left are a range: dim-range-narrowed below
            return Kind(
                "dim-specialized",
                f"`{dim}` can only be {values[0]}, the one size the code's shape tests leave",
                {"dim": dim, "value": values[0], "source": source, "torch_suggested": fixes},
                where="guard",
            )
    if m := _NARROWED.search(message):
        fix: dict[str, Any] = {"dim": m["dim"], "source": m["source"], "suggested": fixes}
        detail = f"not every value of `{m['dim']}` passes the code's shape test"
        multiple = next((d for d in map(_MULTIPLE.match, fixes) if d and d["dim"] == m["dim"]), None)
        if multiple:
            # Patches / heads / reshapes: the size must divide evenly (torch: `h = 8*_h`), often
            # for every side alike (torch suggests `w = 8*_w` too): each is named.
            factor = int(multiple["factor"])
            dims = [d["dim"] for d in map(_MULTIPLE.match, fixes) if d and int(d["factor"]) == factor]
            fix["multiple_of"] = factor
            fix["dims"] = dims
            many = "multiples" if len(dims) > 1 else "a multiple"
            detail = f"{quoted_names(dims)} must be {many} of {factor}"
            fix["hint"] = f"declare {_multiples(dims, factor)}, and give example sizes that are multiples"
        elif not fixes and (exact := exact_multiple(printed, m["dim"])):
            # Every size passes, but through a rounded division torch cannot reason about.
            factor, dims = exact
            fix["exact_multiple"] = factor
            fix["dims"] = dims
            detail = (
                f"every size of {quoted_names(dims)} passes the code's shape test, but torch cannot prove"
                " it: the size goes through a rounded division"
            )
            fix["hint"] = (
                f"declare {_multiples(dims, factor)}, for which every division is exact; otherwise make "
                f"{quoted_names(dims)} static"
            )
        elif left := sizes_left(message, m["dim"], [g for d, _, g in printed if d == m["dim"]]):
            fix["sizes_left"] = left
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


# Sizes a "passes everywhere" verdict is read from: every small one, a few large ones.
_PROBES = (*range(2, 65), 96, 127, 128, 129, 200, 255, 256, 1000)


def exact_multiple(printed: list[tuple[str, str, str]], dim: str) -> tuple[int, list[str]] | None:
    """(k, dims) when, above some small size, every size of `dim` passes each of its printed
    guards, and at multiples of k every division in them is exact: torch cannot prove a guard like
    `max(0, 1 - h + 2*math.ceil(h / 2)) > 0` for a plain Dim (a conv's SAME padding), but can
    for `h = k * _h`. `dims`: `dim` and the other Dims whose guards are alike (the other side)."""
    by_dim: dict[str, list[str]] = {}
    for name, _, guard in printed:
        by_dim.setdefault(name, []).append(guard)
    if dim not in by_dim:
        return None

    def start(guards: list[str]) -> int | None:
        """The size from which every probed size passes (a Dim's own minimum is 2)."""
        ok = [all(passes(g, v) is True for g in guards) for v in _PROBES]
        first = next((i for i in range(len(ok)) if all(ok[i:])), None)
        return None if first is None or _PROBES[first] > 16 else _PROBES[first]

    def exact(guards: list[str], k: int, low: int) -> bool:
        sizes = [k * n for n in range(1, 25) if k * n >= low]
        return all(exact_at(g, v) is True and passes(g, v) is True for g in guards for v in sizes)

    low = start(by_dim[dim])
    if low is None:
        return None
    factor = next((k for k in range(2, 129) if exact(by_dim[dim], k, low)), None)
    if factor is None:
        return None
    dims = [
        d for d, guards in by_dim.items() if (low := start(guards)) is not None and exact(guards, factor, low)
    ]
    return factor, dims


def _multiples(dims: list[str], factor: int) -> str:
    """`h` and `w` as multiples of 14 (`h = 14 * Dim("_h")`, `w = 14 * Dim("_w")`)."""
    declared = ", ".join(f'`{d} = {factor} * Dim("_{d}")`' for d in dims)
    many = "multiples" if len(dims) > 1 else "a multiple"
    return f"{quoted_names(dims)} as {many} of {factor} ({declared})"


# sympy's words when torch's Dim solver cannot reduce a guard (it names the Dim `x`, its own dummy).
_UNSOLVED = re.compile(r"The inequality, (?P<expr>.+?), cannot be solved")


def solver_gave_up(record: FailureRecord) -> bool:
    """torch's Dim solver (`DimConstraints.solve`) raised sympy's NotImplementedError on a guard."""
    if record.get("exc_type") != "NotImplementedError":
        return False
    frames = [(str(f.get("path", "")), f.get("name")) for f in record.get("frames") or []]
    return any(name == "solve" and path.endswith("symbolic_shapes.py") for path, name in frames)


def unsolved(message: str) -> Kind:
    """The solver could not state which sizes pass a guard: the Dim's range is narrowed by a line
    (guards.py finds it from the guard), to sizes no Dim declaration can express."""
    m = _UNSOLVED.search(message)
    guard = re.sub(r"\bx\b", "s0", m["expr"]) if m else ""
    return Kind(
        "dim-range-narrowed",
        "torch's Dim solver cannot state which sizes pass the code's shape test (NotImplementedError)",
        {"solver_guard": guard},
        where="guard",
    )
