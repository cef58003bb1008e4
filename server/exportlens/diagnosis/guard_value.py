"""Evaluate a shape guard as torch prints it (`Eq((s77//2), 3)`) at chosen sizes, without sympy.

The server has no torch (nor sympy): the guards come from the worker as text.  Telling which
guard pinned a Dim to a constant needs only integer arithmetic on that text: the guard that
holds at the specialised value and at no larger size is the one that forced it, while the
others (`Eq(Mod(512*s77, 1024), 0)`: "even") leave other sizes possible.
"""

from __future__ import annotations

import ast
import functools
import math
import operator
import re
from collections.abc import Callable
from typing import Any

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Div: operator.truediv,  # the solver's own text: `Eq(512*(((x/8)//4)) - 512, 0)`
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.BitAnd: operator.and_,  # sympy's `And` as printed: `(a >= 1) & (b >= 1)`
    ast.BitOr: operator.or_,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}
_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "Eq": operator.eq,
    "Ne": operator.ne,
    "Mod": operator.mod,
    "PythonMod": operator.mod,
    "FloorDiv": operator.floordiv,
    "Max": max,
    "Min": min,
    "IntInfinity": lambda: 10**18,
    # Sizes through float arithmetic (`math.ceil(ih / sh)`), as sites and messages print them.
    "max": max,
    "min": min,
    "torch.sym_max": max,  # 2.15 prints max/min so
    "torch.sym_min": min,
    "math.ceil": math.ceil,
    "math.floor": math.floor,
    "math.trunc": math.trunc,
    "torch.sym_float": float,
    "CeilToInt": math.ceil,
    "FloorToInt": math.floor,
    "TruncToInt": math.trunc,
    "ToFloat": float,
    "IntTrueDiv": operator.truediv,
    "FloatTrueDiv": operator.truediv,
}
# The divisions of a size: exact for a multiple of the divisor (see `exact_at`).
_DIVIDING = {ast.Div, ast.FloorDiv}
_DIVIDING_CALLS = {"IntTrueDiv", "FloatTrueDiv", "FloorDiv"}
# Probes well past the value: a guard pins the Dim when it holds at none of them.
_PROBE_FACTORS = (2, 3, 5)
# Sizes to tell two guards apart by: small ones (each remainder) and a few large ones.
_PROBES = (*range(2, 80), 96, 127, 128, 136, 200, 255, 256, 513, 1000, 1024)
# An input size as torch prints it in a guard (`L['x'].size()[2]`, `L['args'][0][0].size()[2]`).
_SOURCE = re.compile(r"L\[[^\]]+\](?:\[[^\]]+\])*\.size\(\)\[\d+\]")
_SYMBOL = re.compile(r"\b[su]\d+\b")


class _Unknown(Exception):
    """A construct this evaluator does not know: no verdict."""


def holds(expr: str, values: dict[str, int]) -> bool | None:
    """Whether the guard is true with its symbols at `values`; None when it cannot be evaluated."""
    try:
        tree = ast.parse(expr, mode="eval")
        return bool(_eval(tree.body, values))
    except (SyntaxError, _Unknown, ArithmeticError, TypeError, ValueError, RecursionError):
        return None


def pins(expr: str, symbol: str, value: int) -> bool:
    """The guard holds at `value` and at no larger size: it forces `symbol` to a constant."""
    if holds(expr, {symbol: value}) is not True:
        return False
    probes = [value * k + j for k in _PROBE_FACTORS for j in (0, 1)]
    return all(holds(expr, {symbol: p}) is False for p in probes)


# "- Not all values of h = L['x'].size()[2] in the specified range [h <= 32] satisfy the generated
# guard (L['x'].size()[2] // 8) == 8." (one per line; the last may run into the next sentence)
_PRINTED = re.compile(
    r"Not all values of (?P<dim>\w+) = (?P<source>\S+) in the specified range.*? "
    r"satisfy the generated guard (?P<guard>.+?)(?:\.?$|\.?(?=Specializations unexpectedly))",
    re.MULTILINE,
)


def printed_guards(message: str) -> list[tuple[str, str, str]]:
    """(dim, source, guard) of each failing guard torch's message prints, in its order."""
    return [(m["dim"], m["source"], m["guard"]) for m in _PRINTED.finditer(message)]


def only_values(guard: str) -> list[int]:
    """The few sizes an equality guard allows (`(s0 // 2) == 3`: 6 and 7), else [] (a range,
    a multiple, a bound: many sizes pass)."""
    text = from_message(guard)
    if "==" not in text and "Eq(" not in text:
        return []
    parsed = parsed_guard(text)
    passing = [p for p in range(1, 2049) if parsed.holds(p) is True]
    return passing if passing and len(passing) <= 32 and passing[-1] < 1024 else []


def passes(guard: str, size: int) -> bool | None:
    """Whether a guard as torch's message prints it holds with its Dim at `size`."""
    return parsed_guard(guard).holds(size)


def from_message(guard: str) -> str:
    """torch's printed guard with each input size as the one symbol `s0` (sites are probed the same way)."""
    return _SOURCE.sub("s0", guard.strip().rstrip("."))


def signature(expr: str) -> tuple[bool, ...] | None:
    """The guard's truth at each probe size, every symbol at that size; None if it cannot be told.

    Two guards with one signature are taken as the same (torch prints them differently from the
    sympy text the sites record); a message guard is about one Dim, and so are most sites.
    """
    one = _SYMBOL.sub("s0", expr)
    try:
        tree = ast.parse(one, mode="eval").body
    except SyntaxError:
        return None
    out = []
    for p in _PROBES:
        try:
            out.append(bool(_eval(tree, {"s0": p})))
        except (_Unknown, ArithmeticError, TypeError, ValueError, RecursionError):
            return None
    return tuple(out)


def sizes_passing(expr: str, limit: int = 2048) -> list[int]:
    """The sizes (every symbol at that size) at which a recorded guard holds."""
    guard = parsed_guard(expr)
    return [p for p in range(1, limit + 1) if guard.holds(p) is True]


def splits(site_expr: str, factor: int) -> bool:
    """The guard holds at multiples of `factor`, fails between them and repeats only every
    `factor` sizes: it asks for the multiple, not for a divisor of it (an evenness guard)."""
    guard = parsed_guard(site_expr)
    base = factor * 8
    if not all(guard.holds(base * k) is True for k in (1, 2)):
        return False
    pattern = [guard.holds(base + j) for j in range(2 * factor)]
    if False not in pattern[1:factor]:
        return False
    divisors = [d for d in range(1, factor) if factor % d == 0]
    return not any(all(pattern[j] == pattern[j + d] for j in range(factor)) for d in divisors)


def exact_at(expr: str, size: int) -> bool | None:
    """Whether every division in the guard (`h // 2`, `math.ceil(h / 2)`) is exact with its
    symbols at `size`; None when it cannot be evaluated. torch proves a guard over a Dim that
    is a multiple of the divisors (`h = 2 * _h`), not over a plain one."""
    return parsed_guard(expr).exact(size)


class ParsedGuard:
    """A guard (a site's sympy text or a message's Python text, any symbol) parsed once, to be
    evaluated at many sizes with every symbol at that size."""

    def __init__(self, expr: str) -> None:
        try:
            self.tree: ast.expr | None = ast.parse(from_message(_SYMBOL.sub("s0", expr)), mode="eval").body
        except (SyntaxError, ValueError, RecursionError):
            self.tree = None

    def holds(self, size: int) -> bool | None:
        return self._run(size, None)

    def exact(self, size: int) -> bool | None:
        remainders: list[bool] = []
        return None if self._run(size, remainders) is None else not any(remainders)

    def _run(self, size: int, remainders: list[bool] | None) -> bool | None:
        if self.tree is None:
            return None
        try:
            return bool(_eval(self.tree, {"s0": size}, remainders))
        except (_Unknown, ArithmeticError, TypeError, ValueError, RecursionError):
            return None


@functools.lru_cache(maxsize=256)
def parsed_guard(expr: str) -> ParsedGuard:
    return ParsedGuard(expr)


def _eval(node: ast.expr, values: dict[str, int], remainders: list[bool] | None = None) -> Any:
    """The expression's value; each division's remainder (is there one) noted in `remainders`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):  # bool is an int too
        return node.value if isinstance(node.value, float) else int(node.value)
    if isinstance(node, ast.Name):
        if node.id in values:
            return values[node.id]
        raise _Unknown(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, values, remainders)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left, values, remainders), _eval(node.right, values, remainders)
        if remainders is not None and type(node.op) in _DIVIDING and right:
            remainders.append(left % right != 0)
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.BoolOp):  # `3 <= s0 and s0 <= IntInfinity()`
        results = [bool(_eval(v, values, remainders)) for v in node.values]
        return all(results) if isinstance(node.op, ast.And) else any(results)
    if isinstance(node, ast.Compare):
        left = _eval(node.left, values, remainders)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            if type(op) not in _COMPARE:
                raise _Unknown(type(op).__name__)
            right = _eval(right_node, values, remainders)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.Call) and (name := _called(node)) in _FUNCTIONS:
        if node.keywords:
            raise _Unknown("keywords")
        args = [_eval(a, values, remainders) for a in node.args]
        if remainders is not None and name in _DIVIDING_CALLS and len(args) == 2 and args[1]:
            remainders.append(args[0] % args[1] != 0)
        return _FUNCTIONS[name](*args)
    raise _Unknown(type(node).__name__)


def _called(node: ast.Call) -> str:
    """`Max`, `math.ceil`: the function's dotted name (a name or one attribute of a name)."""
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return f"{func.value.id}.{func.attr}"
    return ""
