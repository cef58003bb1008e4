"""The statements that lead to a call nested in compound statements, loops included.

A first call (`loss = model(xb)`) or an export call often sits in a loop: `for xb, yb in loader:`,
`for step in range(n): X, Y = get_batch("train")`, `while True:`. Its inputs are those of the
loop's first pass, so what runs before it (its *prelude*) is, level by level down to it: the
statements before the one holding it, then, for a loop holding it, the loop's entry
(`LoopEntry`: the `for` target bound from the first item of its iterable, or the `while`
condition evaluated once), then the statements of the loop's body before the call. The worker
runs that (worker/job/prelude.py): never the call's statement, nothing after it, never a second
pass of any loop.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TypeAlias

from ..syntax import child_bodies, contains_export_call
from ..worker.wire.protocol import PRELUDE_ENTER


@dataclass(frozen=True)
class LoopEntry:
    """The start of a loop's first pass, on the way to a call in its body."""

    loop: ast.For | ast.While

    @property
    def reads(self) -> ast.expr:
        """What the entry evaluates: the iterable, or the condition."""
        return self.loop.iter if isinstance(self.loop, ast.For) else self.loop.test


Step: TypeAlias = "ast.stmt | LoopEntry"


def entering(stmt: ast.stmt, body: list[ast.stmt]) -> list[Step]:
    """[LoopEntry] when `body` is the body of the loop `stmt` (not its `else`), else []."""
    if isinstance(stmt, (ast.For, ast.While)) and body is stmt.body:
        return [LoopEntry(stmt)]
    return []


def path_to(block: list[ast.stmt], node: ast.AST, imports: dict[str, str]) -> list[Step]:
    """What runs before `node` in `block`: the statements before the one holding it (those that
    export left out), then, into a compound statement holding it, its loop entry and its body's."""
    for index, stmt in enumerate(block):
        if not _contains(stmt, node):
            continue
        before: list[Step] = [s for s in block[:index] if not contains_export_call(s, imports)]
        inner = next((b for b in child_bodies(stmt) if any(_contains(s, node) for s in b)), None)
        if inner is None or isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return before  # the call is in the statement itself
        return [*before, *entering(stmt, inner), *path_to(inner, node, imports)]
    return []


def prelude_spec(prelude: list[Step]) -> list[list[int]]:
    """The wire form: `[line, col]` of a statement to run, `[line, col, PRELUDE_ENTER]` of a loop."""
    return [
        [s.loop.lineno, s.loop.col_offset, PRELUDE_ENTER]
        if isinstance(s, LoopEntry)
        else [s.lineno, s.col_offset]
        for s in prelude
    ]


def read_nodes(prelude: list[Step]) -> list[ast.AST]:
    """The nodes a prelude evaluates: its statements whole, of a loop entry only what it reads."""
    return [s.reads if isinstance(s, LoopEntry) else s for s in prelude]


def _contains(stmt: ast.stmt, node: ast.AST) -> bool:
    start = (stmt.lineno, stmt.col_offset)
    end = (stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0)
    where = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
    until = (getattr(node, "end_lineno", None) or where[0], getattr(node, "end_col_offset", None) or 0)
    return start <= where and until <= end
