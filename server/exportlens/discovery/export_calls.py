"""Find `torch.export.export(...)` / `draft_export(...)` calls and what they export.

For each call we record the statements that precede it in its block(s) --
the *prelude* the worker runs before evaluating the call's arguments -- and
try to name the module class its first argument builds.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..syntax import child_bodies, contains_export_call, dotted, is_export_call

# Calls on a module that return the module (or a copy): peeled to find its class.
_MODULE_METHODS = {"eval", "train", "to", "cpu", "float", "double", "half", "requires_grad_"}


@dataclass
class ExportCall:
    node: ast.Call
    prelude: list[ast.stmt] = field(default_factory=list)
    class_name: str | None = None  # the class its first argument builds, when known
    target_text: str = ""  # source text of the first argument


def find_export_calls(tree: ast.Module, source: str, imports: dict[str, str]) -> list[ExportCall]:
    calls: list[ExportCall] = []
    # Top-level statements before the load stop already ran when the worker
    # loaded the file: a prelude must not run them twice.
    stop = load_stop(tree, imports)
    loaded = {id(s) for s in tree.body[: tree.body.index(stop) if stop else len(tree.body)]}

    def visit(body: list[ast.stmt], prelude: list[ast.stmt]) -> None:
        for index, stmt in enumerate(body):
            before = prelude + [
                s for s in body[:index] if id(s) not in loaded and not contains_export_call(s, imports)
            ]
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(stmt.body, [])  # a function's body starts afresh
                continue
            if isinstance(stmt, ast.ClassDef):
                continue
            for call in _calls_in_statement(stmt, imports):
                calls.append(_describe(call, before, source))
            for inner in child_bodies(stmt):
                visit(inner, before)

    visit(tree.body, [])
    return calls


def _calls_in_statement(stmt: ast.stmt, imports: dict[str, str]) -> list[ast.Call]:
    """Export calls in the statement itself, not in its nested bodies."""
    nested = {id(s) for body in child_bodies(stmt) for s in body}
    found: list[ast.Call] = []

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if id(child) in nested:
                continue
            if is_export_call(child, imports):
                found.append(child)  # type: ignore[arg-type]
            walk(child)

    walk(stmt)
    return found


def _describe(call: ast.Call, prelude: list[ast.stmt], source: str) -> ExportCall:
    first = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "mod"), None)
    text = ast.get_source_segment(source, first) or "" if first is not None else ""
    return ExportCall(call, prelude, _class_of(first, prelude), text)


def _class_of(expr: ast.AST | None, prelude: list[ast.stmt]) -> str | None:
    """`Net()`, `Net().eval()`, or a name assigned from one of those earlier."""
    seen = 0
    while expr is not None and seen < 20:
        seen += 1
        if isinstance(expr, ast.Call):
            func = expr.func
            if isinstance(func, ast.Attribute) and func.attr in _MODULE_METHODS:
                expr = func.value
                continue
            return dotted(func)
        if isinstance(expr, ast.Name):
            expr = _last_assignment(expr.id, prelude)
            continue
        return None
    return None


def _last_assignment(name: str, prelude: list[ast.stmt]) -> ast.expr | None:
    for stmt in reversed(prelude):
        if isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in stmt.targets
        ):
            return stmt.value
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == name:
            return stmt.value
    return None


def load_stop(tree: ast.Module, imports: dict[str, str]) -> ast.stmt | None:
    """The first top-level statement that would run an export when imported.

    The worker executes the file's top level only up to it: a script-style
    file must not export (or do anything after exporting) just by loading.
    """
    return next((s for s in tree.body if contains_export_call(s, imports)), None)
