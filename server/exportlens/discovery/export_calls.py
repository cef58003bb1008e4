"""Find `torch.export.export(...)` / `draft_export(...)` calls and what they export.

For each call we record the statements that precede it in its block(s) --
the *prelude* the worker runs before evaluating the call's arguments, with the entry of each loop
holding it (loops.py: a call in `for xb, yb in loader:` gets the first batch) -- and
try to name the module class its first argument builds.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..syntax import child_bodies, contains_export_call, is_export_call
from ..worker.wire.export_call import export_argument
from .built_class import built_class, statements_before
from .compile_calls import first_compiled_call
from .loops import Step, entering


@dataclass
class ExportCall:
    node: ast.Call
    prelude: list[Step] = field(default_factory=list)
    class_name: str | None = None  # the class its first argument builds, when known
    target_text: str = ""  # source text of the first argument


def find_export_calls(tree: ast.Module, source: str, imports: dict[str, str]) -> list[ExportCall]:
    calls: list[ExportCall] = []
    # Top-level statements before the load stop already ran when the worker
    # loaded the file: a prelude must not run them twice.
    stop = load_stop(tree, imports)
    loaded = {id(s) for s in tree.body[: tree.body.index(stop) if stop else len(tree.body)]}

    def visit(body: list[ast.stmt], prelude: list[Step], scopes: list[list[ast.stmt]]) -> None:
        for index, stmt in enumerate(body):
            before: list[Step] = prelude + [
                s for s in body[:index] if id(s) not in loaded and not contains_export_call(s, imports)
            ]
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(stmt.body, [], [tree.body, stmt.body])  # a function's body starts afresh
                continue
            if isinstance(stmt, ast.ClassDef):
                continue
            for call in _calls_in_statement(stmt, imports):
                calls.append(_describe(call, before, source, tree, scopes))
            for inner in child_bodies(stmt):
                visit(inner, before + entering(stmt, inner), scopes)

    visit(tree.body, [], [tree.body])
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


def _describe(
    call: ast.Call, prelude: list[Step], source: str, tree: ast.Module, scopes: list[list[ast.stmt]]
) -> ExportCall:
    first = export_argument(call, "mod")
    if first is None and isinstance(call.func, ast.Attribute):  # a library wrapper's `.export(...)`
        first = call.func.value
    text = ast.get_source_segment(source, first) or "" if first is not None else ""
    # What ran before the call, the top-level statements the load runs included (`model =
    # Net().to(device)` above the call): where its first argument's class is read from.
    built = built_class(first, statements_before(scopes, call), tree)
    return ExportCall(call, prelude, built, text)


def load_stop(tree: ast.Module, imports: dict[str, str]) -> ast.stmt | None:
    """The first top-level statement that would run an export when imported.

    The worker executes the file's top level only up to it: a script-style
    file must not export (or do anything after exporting) just by loading, nor call a model it
    compiles (compile_calls.py).
    """
    compiled = first_compiled_call(tree, imports)
    return next((s for s in tree.body if s is compiled or contains_export_call(s, imports)), None)
