"""Run what leads to a call whose arguments are the example inputs: its prelude.

A prelude (discovery/loops.py) lists, by position, the statements to run before the call and, for
each loop holding it, the loop's entry (`[line, col, PRELUDE_ENTER]`): the entries after one are
statements of that loop's body. They run as one program in which each loop is its first pass
only: a `for` target is bound from the first item of its iterable (a `DataLoader`'s first batch,
`range`'s 0, a generator's first `yield`), a `while` condition is evaluated once, and the body's
statements before the call run inside a pass of one round, so a `break` or `continue` there
compiles and ends it. A pass left so never reached the call: that is said, and nothing of a
second pass runs. The call's own statement never runs, nor anything after it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import Any

from ..wire.protocol import PRELUDE_ENTER

_FIRST, _ENTERS, _REACHED, _PASS = (
    "__exportlens_first__",
    "__exportlens_enters__",
    "__exportlens_reached__",  # the index of the loop whose pass runs, len(loops) at the call
    "__exportlens_pass__",
)


def find_node(tree: ast.AST, kind: type | tuple[type, ...], *place: int) -> Any:
    """The node of `kind` at `place`: (line, col), or (line, col, end_line, end_col) where nodes
    nest from one start (`export(m, args).module()`, `model(x).sum()`: two calls at one place)."""
    for node in ast.walk(tree):
        if isinstance(node, kind):
            where = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
            if where[: len(place)] == place:
                return node
    names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
    raise LookupError(f"no {names} at {':'.join(map(str, place))} (the buffer changed?)")


def run_prelude(entries: list[list[int]], tree: ast.Module, path: str, namespace: dict[str, Any]) -> None:
    if not entries:
        return
    top: list[ast.stmt] = []
    loops: list[ast.For | ast.While] = []
    level = top  # where the next statement goes: the innermost pass
    for entry in entries:
        line, col = entry[0], entry[1]
        if len(entry) > 2 and entry[2] == PRELUDE_ENTER:
            loop = find_node(tree, (ast.For, ast.While), line, col)
            level.append(_entry(loop))
            one_round = ast.For(_name(_PASS, ast.Store()), ast.Tuple([ast.Constant(0)], ast.Load()), [], [])
            level.append(ast.copy_location(one_round, loop))
            level = one_round.body
            level.append(_reached(len(loops), loop))
            loops.append(loop)
        else:
            level.append(find_node(tree, ast.stmt, line, col))
    if loops:
        level.append(_reached(len(loops), loops[-1]))
    program = ast.fix_missing_locations(ast.Module(body=top, type_ignores=[]))
    namespace.update({_FIRST: _first, _ENTERS: _enters, _REACHED: len(loops)})
    exec(compile(program, path, "exec"), namespace)  # noqa: S102
    if namespace[_REACHED] < len(loops):
        raise RuntimeError(
            f"the first pass of the loop on line {loops[namespace[_REACHED]].lineno} leaves it (`break` / "
            "`continue`) before the call: its inputs are not known without running a second pass, which "
            "a check never does"
        )


def _reached(index: int, where: ast.AST) -> ast.stmt:
    return ast.copy_location(ast.Assign([_name(_REACHED, ast.Store())], ast.Constant(index)), where)


def _entry(loop: ast.For | ast.While) -> ast.stmt:
    """`target = first(iterable)` of a `for`; `enters(condition)` of a `while`."""
    where = ast.Constant(loop.lineno)
    if isinstance(loop, ast.For):
        first = ast.Call(_name(_FIRST, ast.Load()), [loop.iter, where], [])
        return ast.copy_location(ast.Assign([loop.target], first), loop)
    return ast.copy_location(ast.Expr(ast.Call(_name(_ENTERS, ast.Load()), [loop.test, where], [])), loop)


def _name(name: str, ctx: ast.expr_context) -> ast.Name:
    return ast.Name(name, ctx)


def _first(items: Iterable[Any], line: int) -> Any:
    for item in items:
        return item
    raise LookupError(f"the loop on line {line} has no first item: the script never reaches the call in it")


def _enters(condition: Any, line: int) -> None:
    if not condition:
        raise LookupError(
            f"the condition of the loop on line {line} is false: the script never reaches the call in it"
        )
