"""`torch._check(...)` before a data-dependent guard: tell torch which way the test goes.

The assumption is stated in the title; the exported program then asserts it at run time.  A
`.item()` inside the test is hoisted into a local first, so the check and the `if` share one value
(two `.item()` calls are two unknown numbers to torch).
"""

from __future__ import annotations

import ast
import copy
from typing import Any

from ..document import Document
from .edits import Edit, indent_of, unique_name
from .model import Fix
from .parsed import enclosing


def check_fixes(doc: Document, line: int, code: str, data: dict[str, Any]) -> list[Fix]:
    tree = doc.tree
    hits = [
        n
        for n in enclosing(tree, line + 1, ast.If)
        if isinstance(n, ast.If) and n.test.lineno == line + 1 == n.test.end_lineno
    ]
    if not hits:
        return []
    node = hits[-1]
    lines = doc.text.splitlines(keepends=True)
    header = lines[node.lineno - 1]
    if not header.lstrip().startswith("if "):
        return []  # an `elif`: the check would have to go inside the previous branch
    ind = indent_of(header)
    test = copy.deepcopy(node.test)  # rewritten below; the shared tree stays as parsed
    prelude: list[str] = []
    items = [
        c
        for c in ast.walk(test)
        if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr in ("item", "tolist")
    ]
    new_header = header
    if items:
        segment = ast.get_source_segment(doc.text, items[0])
        if segment is None or header.count(segment) != 1:
            return []
        name = unique_name(set(doc.names), "value")
        prelude.append(f"{ind}{name} = {segment}\n")
        new_header = header.replace(segment, name, 1)
        test = _replace(test, items[0], ast.Name(name, ast.Load()))
    shown = ast.unparse(test)
    negated = ast.unparse(_negate(test))
    fixes = []
    for assumed, text in ((True, shown), (False, negated)):
        title = f"Add torch._check({text}) before the `if` (assumes `{shown}` is always {assumed})"
        body = [*prelude, f"{ind}torch._check({text})\n", new_header]
        edits = [Edit(node.lineno - 1, node.lineno, "".join(body))]
        fixes.append(Fix(title, code, "check", edits, {"compare": "original"}))
    return fixes


def _replace(tree: ast.expr, old: ast.AST, new: ast.expr) -> ast.expr:
    """`tree` with the node `old` swapped for `new` (the tree is this function's own parse)."""

    class Swap(ast.NodeTransformer):
        def visit(self, node: ast.AST) -> ast.AST:
            return new if node is old else super().visit(node)

    result = Swap().visit(tree)
    assert isinstance(result, ast.expr)
    return result


def _negate(test: ast.expr) -> ast.expr:
    flips: dict[type[ast.cmpop], type[ast.cmpop]] = {
        ast.Gt: ast.LtE,
        ast.GtE: ast.Lt,
        ast.Lt: ast.GtE,
        ast.LtE: ast.Gt,
        ast.Eq: ast.NotEq,
        ast.NotEq: ast.Eq,
    }
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in flips:
        return ast.Compare(test.left, [flips[type(test.ops[0])]()], test.comparators)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    return ast.UnaryOp(ast.Not(), test)
