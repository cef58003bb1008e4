"""Shape conditions an exported program checks when it runs that reject sizes its Dims declare.

torch states what it can of a Dim as its range (`range_constraints`), and refuses the export when a
guard narrows that range in a way its solver can say. A guard it cannot say (`(h//32)*(w//32) == 4`
from a position table of 4 entries under dynamic H and W) is kept instead, as a check of the inputs
(`ExportedProgram._guards_code`, torch's ShapeEnv guards) or a runtime assert in the graph
(`_assert_scalar`): the export passes, and the program then rejects every other size. A guard
narrows when some size inside the declared ranges fails it: each dim is tried at a few sizes
inside its range (its example's neighbours, twice it, the bounds), the others at their examples;
a size found is a real one the program rejects (none found: nothing said). The line that made each
one is found by the export again with torch's guards recorded (guard_sites.py), only when there
is one. In the child, with torch.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..wire.records import Frame, Narrowing

NARROWING_LIMIT = 8
_MAX_TRIED = 1 << 16  # an unbounded Dim is tried up to here


def narrowing(program: Any) -> list[Narrowing]:
    """Best effort: an odd guard must not turn a successful export into a failure."""
    try:
        return _narrowing(program)
    except Exception:  # noqa: BLE001
        return []


def _narrowing(program: Any) -> list[Narrowing]:
    from torch.export.exported_program import _get_shape_env

    shape_env = _get_shape_env(program.graph_module)  # type: ignore[no-untyped-call]
    if shape_env is None:
        return []
    ranges = dict(program.range_constraints)
    hints = dict(getattr(shape_env, "backed_var_to_val", None) or shape_env.var_to_val)  # renamed in 2.13
    names, sizes = _input_dims(program)
    # Judged in the program's symbols: a derived Dim's guards name the size it replaced (`s69` for
    # `14*s53`); kept as torch recorded them (`expr`), which is what the guard sites name.
    conditions: list[tuple[Any, Any, list[Frame]]] = [
        (g.expr, _replaced(shape_env, g.expr), []) for g in shape_env.guards
    ]
    conditions += [(expr, expr, frames) for expr, frames in _runtime_asserts(program)]
    found: list[Narrowing] = []
    seen: set[str] = set()
    for recorded, expr, frames in conditions:
        text = str(expr)
        symbols = sorted(getattr(expr, "free_symbols", ()), key=str)
        if text in seen or not symbols or not all(s in ranges and s in hints and s in names for s in symbols):
            continue
        seen.add(text)
        rejected = _rejected(expr, symbols, ranges, hints)
        if rejected is None:
            continue
        symbol, size = rejected
        size_of = sizes.get(symbol, _same)  # `14*s53`: the input's size, not the symbol's
        found.append(
            {
                "expr": str(recorded),
                "shown": _shown(text, {str(s): _symbol_shown(names[s], s, sizes) for s in symbols}),
                "dim": names[symbol],
                "rejected": size_of(size),
                "example": size_of(int(hints[symbol])),
                "min": _mapped(size_of, _bound(ranges[symbol].lower)),
                "max": _mapped(size_of, _bound(ranges[symbol].upper)),
                "frames": frames,
            }
        )
        if len(found) >= NARROWING_LIMIT:
            break
    return found


def _input_dims(program: Any) -> tuple[dict[Any, str], dict[Any, Callable[[int], int]]]:
    """Each symbol that is a user input's dim, as `x.shape[2]`, or a multiple of one (`14*s53`, a
    Dim declared `14 * Dim("h_patches")`): for those, the input's size at each of its values."""
    import torch

    user = {s.arg.name for s in program.graph_signature.input_specs if s.kind.name == "USER_INPUT"}
    names: dict[Any, str] = {}
    sizes: dict[Any, Callable[[int], int]] = {}
    for node in program.graph_module.graph.nodes:
        value = node.meta.get("val")
        if node.op != "placeholder" or node.name not in user or not isinstance(value, torch.Tensor):
            continue
        for index, size in enumerate(value.shape):
            expr = getattr(getattr(size, "node", None), "expr", None)
            free = list(getattr(expr, "free_symbols", ()))
            if expr is None or len(free) != 1 or free[0] in names:
                continue
            names[free[0]] = f"{node.name}.shape[{index}]"
            if not getattr(expr, "is_Symbol", False):
                sizes[free[0]] = _size_at(expr, free[0])
    return names, sizes


def _replaced(shape_env: Any, expr: Any) -> Any:
    try:
        return shape_env.replace(expr)
    except Exception:  # noqa: BLE001 - the guard as torch kept it
        return expr


def _same(value: int) -> int:
    return value


def _size_at(expr: Any, symbol: Any) -> Callable[[int], int]:
    return lambda value: int(expr.xreplace({symbol: value}))


def _mapped(size_of: Callable[[int], int], bound: int | None) -> int | None:
    return None if bound is None else size_of(bound)


def _symbol_shown(name: str, symbol: Any, sizes: dict[Any, Callable[[int], int]]) -> str:
    """A derived dim's symbol by the input size it divides: `x.shape[2]//14` for `14*s53`."""
    if symbol not in sizes:
        return name
    step = sizes[symbol](1) - sizes[symbol](0)
    return f"({name} // {step})" if step > 1 and sizes[symbol](0) == 0 else name


def _runtime_asserts(program: Any) -> list[tuple[Any, list[Frame]]]:
    """`_assert_scalar` nodes of the graph: their condition and the frames of their stack trace."""
    found = []
    for node in program.graph_module.graph.nodes:
        if node.op != "call_function" or "assert_scalar" not in str(node.target) or not node.args:
            continue
        condition = getattr(node.args[0], "meta", {}).get("val")
        expr = getattr(getattr(condition, "node", None), "expr", None)
        if expr is not None:
            found.append((expr, _frames(node.meta.get("stack_trace") or "")))
    return found


_FRAME = re.compile(r'File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<name>\S+)')


def _frames(trace: str) -> list[Frame]:
    return [{"path": m["path"], "line": int(m["line"]), "name": m["name"]} for m in _FRAME.finditer(trace)]


def _rejected(
    expr: Any, symbols: list[Any], ranges: dict[Any, Any], hints: dict[Any, Any]
) -> tuple[Any, int] | None:
    """A symbol and a size in its range where `expr` is false (the others at their examples)."""
    import sympy

    base = {s: sympy.Integer(int(hints[s])) for s in symbols}
    for symbol in symbols:
        for size in _sizes(int(hints[symbol]), ranges[symbol]):
            try:
                value = expr.xreplace({**base, symbol: sympy.Integer(size)})
            except Exception:  # noqa: BLE001 - a function sympy cannot evaluate here: not judged
                break
            if value is sympy.false:
                return symbol, size
    return None


def _sizes(example: int, value_range: Any) -> list[int]:
    low = _bound(value_range.lower)
    high = _bound(value_range.upper)
    low = 2 if low is None else max(low, 2)  # 0 and 1 are torch's own rule for every Dim, said elsewhere
    high = _MAX_TRIED if high is None else min(high, _MAX_TRIED)
    tried = [
        example + 1,
        example - 1,
        example + example // 2,
        2 * example,
        low,
        low + 1,
        high,
        (low + high) // 2,
    ]
    return [s for s in dict.fromkeys(tried) if low <= s <= high and s != example]


def _bound(value: Any) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError, AttributeError):
        return None
    return number if abs(number) < 2**62 else None


def _shown(text: str, names: dict[str, str]) -> str:
    """The condition with input dims for symbols: `((x.shape[3]//32))*((x.shape[2]//32)) == 4`."""
    if text.startswith("Eq(") and text.endswith(")"):
        text = _infix(text[3:-1], "==")
    elif text.startswith("Ne(") and text.endswith(")"):
        text = _infix(text[3:-1], "!=")
    return re.sub(r"\b[su]\d+\b", lambda m: names.get(m[0], m[0]), text)


def _infix(arguments: str, operator: str) -> str:
    depth = 0
    for index, char in enumerate(arguments):
        depth += char == "("
        depth -= char == ")"
        if char == "," and depth == 0:
            return f"{arguments[:index].strip()} {operator} {arguments[index + 1 :].strip()}"
    return arguments


def locate(found: list[Narrowing], attempt: Any, strict: bool, budget: Any) -> None:
    """The frames that made each condition, from one more export with torch's guards recorded (the
    same tracer: its symbols have the same names); bounded by half of the time left."""
    from ..core.budget import OutOfBudget
    from .guard_sites import record_sites

    if all(n["frames"] for n in found):
        return
    try:
        with budget.bounded(share=0.5):
            sites = record_sites(attempt, strict)[0]
    except OutOfBudget:
        return
    except Exception:  # noqa: BLE001 - locating is best effort: the conditions are said without a line
        return
    frames = {site["expr"]: site["frames"] for site in sites}
    for entry in found:
        entry["frames"] = entry["frames"] or frames.get(entry["expr"], [])
