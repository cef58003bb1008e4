"""torch's symbolic notation as the Python a user writes: `FloatTrueDiv(ToFloat(a), 4.0)` is
`float(a) / 4.0`. Guards and runtime asserts print sympy functions of torch's own
(torch/utils/_sympy/functions.py); a message shows the expression the user's line computes."""

from __future__ import annotations

import re

_OPERATORS = {  # a function of two arguments that is an operator in Python
    "FloatTrueDiv": "/",
    "IntTrueDiv": "/",
    "FloorDiv": "//",
    "CleanDiv": "//",
    "Mod": "%",
    "PythonMod": "%",
    "FloatPow": "**",
    "PowByNatural": "**",
    "Eq": "==",
    "Ne": "!=",
}
_FUNCTIONS = {  # a function of one argument (two for max/min) that has a Python spelling
    "ToFloat": "float",
    "TruncToInt": "int",
    "FloorToInt": "math.floor",
    "CeilToInt": "math.ceil",
    "RoundToInt": "round",
    "Max": "max",
    "Min": "min",
}
_CALL = re.compile(r"\b(" + "|".join([*_OPERATORS, *_FUNCTIONS]) + r")\(")
_ATOM = re.compile(r"-?[\w.]+(\[\d+\])?")


def readable(text: str) -> str:
    """`text` with each of torch's functions written as Python; text it cannot read, unchanged."""
    try:
        return _rewrite(text)
    except ValueError:
        return text


def _rewrite(text: str) -> str:
    out, at = [], 0
    while (call := _CALL.search(text, at)) is not None:
        name = call[1]
        args, end = _arguments(text, call.end())
        args = [_rewrite(arg.strip()) for arg in args]
        if name in _OPERATORS:
            if len(args) != 2:
                raise ValueError(name)
            said = f" {_OPERATORS[name]} ".join(_operand(arg) for arg in args)
        else:
            if len(args) != (2 if name in ("Max", "Min") else 1):
                raise ValueError(name)
            said = f"{_FUNCTIONS[name]}({', '.join(_unwrapped(arg) for arg in args)})"
        out.append(text[at : call.start()] + said)
        at = end
    out.append(text[at:])
    return "".join(out)


def _arguments(text: str, start: int) -> tuple[list[str], int]:
    """The top-level arguments of the call whose `(` ends just before `start`, and the end."""
    depth, begin = 0, start
    args: list[str] = []
    for i in range(start, len(text)):
        char = text[i]
        if char in "([":
            depth += 1
        elif char in ")]":
            if depth == 0:
                return [*args, text[begin:i]], i + 1
            depth -= 1
        elif char == "," and depth == 0:
            args.append(text[begin:i])
            begin = i + 1
    raise ValueError("unbalanced")


def _wrapped(arg: str) -> bool:
    """`(…)` whose first parenthesis closes at the end."""
    return arg.startswith("(") and _arguments(arg, 1)[1] == len(arg)


def _unwrapped(arg: str) -> str:
    while _wrapped(arg):
        arg = arg[1:-1].strip()
    return arg


def _operand(arg: str) -> str:
    """An operand as Python needs it: a name, a number, a call or a parenthesised whole as is."""
    arg = _unwrapped(arg)
    call = re.match(r"[\w.]+\(", arg)
    simple = _ATOM.fullmatch(arg) or (call is not None and _arguments(arg, call.end())[1] == len(arg))
    return arg if simple else f"({arg})"
