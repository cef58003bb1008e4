"""Columns for a culprit frame that has none: torch 2.10's dynamo stacks carry only the line.

Without columns the finding would cover the whole line, comment included.  The record still says
what was being called when dynamo stopped: the function of the next frame down (`cond`, `dumps`),
the skipped function's qualname, the builtin or operator, the custom op.  The culprit is that call
on the line (as CPython's columns would give it); else the statement itself, without its comment.
Columns here are UTF-8 byte offsets, like CPython's.
"""

from __future__ import annotations

import ast
import re

from ..document import Document
from ..worker.wire.records import FailureRecord, Frame
from .table import said

_OPERATORS = {"mod": ast.Mod, "add": ast.Add, "sub": ast.Sub, "mul": ast.Mult, "truediv": ast.Div}
_DUNDERS = {"__getitem__": "[]"}  # `self.heads[i]`: the subscription
_NAMES = (
    re.compile(r"qualname: (?:[\w.]*\.)?(\w+),"),  # a skipped function
    re.compile(r"builtin operator `(\w+)`"),
    re.compile(r"Dynamo graph breaks on `(?:[\w.]*\.)?(\w+)\(\)`"),
    re.compile(r"CustomOpDef\([\w.]+::(\w+)\)"),
    re.compile(r"call_function (\w+)\("),
    re.compile(r"\b(deepcopy)\("),
    re.compile(r"call_method .* __(len|str|repr|format|hash)__ "),  # the builtin behind a dunder
)


def callees(record: FailureRecord, inner: list[Frame]) -> list[str]:
    """Names of what the culprit line was calling, most telling first."""
    names = [_DUNDERS.get(name, name) for name in (str(f.get("name", "")) for f in inner[:1])]
    text = said(str(record.get("message", "")))
    names += [m[1] for pattern in _NAMES for m in pattern.finditer(text)]
    op = str(record.get("op") or "")
    if op.count(".") >= 1:
        names.append(op.split(".")[-2] if op.count(".") >= 2 else op.split(".")[-1])
    return [n for n in names if n and not (n.startswith("__") and n.endswith("__")) and n != "forward"]


def _tree(doc: Document | None) -> ast.Module | None:
    return None if doc is None or doc.syntax_error is not None else doc.tree


def _callee(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        func = node.func
        return (
            func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        )
    return None


def fill(frame: Frame, doc: Document | None, names: list[str]) -> Frame:
    """`frame` with columns: the call of one of `names` on its line of `doc` (its file), else its
    statement."""
    tree = _tree(doc)
    line = int(frame.get("line") or 0)
    if frame.get("col") is not None or tree is None or not line:
        return frame
    nodes = [n for n in ast.walk(tree) if isinstance(n, ast.expr | ast.stmt) and n.lineno == line]
    on_line = [n for n in nodes if n.end_lineno == line]
    for name in names:
        wanted = _OPERATORS.get(name)
        for node in on_line:
            if (
                _callee(node) == name
                or (wanted and isinstance(node, ast.BinOp) and isinstance(node.op, wanted))
                or (name == "[]" and isinstance(node, ast.Subscript))
            ):
                return _at(frame, node)
    statement: ast.expr | ast.stmt | None = next((n for n in on_line if isinstance(n, ast.stmt)), None)
    header = next((n for n in nodes if isinstance(n, ast.If | ast.While)), None)
    if statement is None and header is not None and header.test.end_lineno == line:
        statement = header.test  # `if`/`while`: the jump is on the condition, as CPython's columns say
    return _at(frame, statement) if statement is not None else frame


def _at(frame: Frame, node: ast.expr | ast.stmt) -> Frame:
    filled = frame.copy()
    filled["col"], filled["end_col"] = node.col_offset, node.end_col_offset
    filled["end_line"] = node.end_lineno
    return filled
