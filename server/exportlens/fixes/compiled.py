"""Fixes for a graph break (compile-graph-break, docs/compile.md): each proven by tracing again.

- a data-dependent `if`: the torch.cond / torch.where rewrites export has (cond.py);
- `print` / a logging call: run it only when not compiling (`torch.compiler.is_compiling()`), remove
  it, or let dynamo reorder it (`torch._dynamo.config.reorderable_logging_functions`);
- `.item()` (or `int(tensor)`, the same break): `torch._dynamo.config.capture_scalar_outputs = True`;
- an op whose output size depends on the data (`x[mask]`, `nonzero`):
  `torch._dynamo.config.capture_dynamic_output_shape_ops = True`;
- a library's logging call: the library's own configuration that avoids it (library_config.py),
  or `torch._dynamo.config.ignore_logging_functions`.

Every fix carries `verify["compile"]["lines"]`: the lines of its candidate text where the break's
line is now (the rewritten lines, or the same line moved by the edits above it). The worker compiles
the candidate and calls it on the same inputs (worker/job/compiled.py's `compiled_without_break`): the
fix is proven when dynamo breaks the graph on none of those lines and the result matches eager mode
of the original. One not proven is not offered (lsp/code_actions.py).
"""

from __future__ import annotations

import ast
from typing import Any

from ..document import Document
from . import cond
from .edits import Edit, indent_of, last_import_line, node_lines, reindent
from .library_config import use_cache_fix
from .model import Fix

BREAK_CODES = ("compile-graph-break", "compile-graph-break-fullgraph")
# logging.Logger's, and transformers' `warning_once` / `info_once` (set on logging.Logger by its utils)
_LOG_METHODS = {
    "debug",
    "info",
    "warning",
    "warn",
    "error",
    "exception",
    "critical",
    "log",
    "warning_once",
    "info_once",
}
_LOG_ROOTS = {"logging", "warnings"}


def compile_fixes(doc: Document, line: int, code: str, data: dict[str, Any] | None = None) -> list[Fix]:
    """Fixes for a graph break on 0-based `line`, each with the lines its proof looks at; a break
    inside a library (`data["library"]`: its frame) is proven gone from that frame too."""
    data = data or {}
    if isinstance(library := data.get("library"), list):  # on the user's call of the compiled model
        return _library_fixes(doc, line, code, library, data.get("logger_method"))
    found = [f for f in cond.cond_fixes(doc, line, code) if not f.disabled]
    statement = _call_statement(doc, line)
    if statement is not None:
        found += _logging_fixes(doc, code, *statement)
    if (".item()" in doc.text.splitlines()[line] or _is_item_break(data)) and _imports_torch(doc):
        config = "torch._dynamo.config.capture_scalar_outputs = True"
        found.append(
            Fix(
                f"Capture `.item()` in the graph: `{config}`",
                code,
                "capture-scalars",
                [_top_line(doc, config)],
            )
        )
    if _is_dynamic_shape_break(data) and _imports_torch(doc):
        config = "torch._dynamo.config.capture_dynamic_output_shape_ops = True"
        found.append(
            Fix(
                f"Capture the data-dependent size in the graph: `{config}`",
                code,
                "capture-dynamic-shapes",
                [_top_line(doc, config)],
            )
        )
    for fix in found:
        fix.verify = {**(fix.verify or {"compare": "original"}), "compare": "original"}
        fix.verify["compile"] = {"lines": moved_lines(fix.edits, line)}
    return found


def _is_dynamic_shape_break(data: dict[str, Any]) -> bool:
    """torch's break on an op whose output size depends on the data (`x[mask]`, `nonzero`, gb0036)."""
    return data.get("gb_id") == "gb0036" or str(data.get("gb_type", "")) == "Dynamic shape operator"


def _is_item_break(data: dict[str, Any]) -> bool:
    """torch's `.item()` break, however the line spells it (MoCo's `int(self.queue_ptr)`)."""
    return data.get("gb_id") == "gb0124" or "Tensor.item()" in str(data.get("gb_type", ""))


def _library_fixes(doc: Document, line: int, code: str, site: list[Any], method: Any) -> list[Fix]:
    """A library's logging call (`logger.warning_once(...)` in transformers) breaks the graph: the
    library's own configuration that avoids the call (library_config.py), and torch's own hint,
    `ignore_logging_functions`, set in the user's file. Each proven when the candidate compiles
    without a break at that library frame and matches eager."""
    found: list[Fix] = []
    if (configured := use_cache_fix(doc, line, code, site)) is not None:
        configured.verify = {
            "compare": "original",
            "compile": {"lines": moved_lines(configured.edits, line), "site": site},
        }
        found.append(configured)
    if not isinstance(method, str) or not method.isidentifier() or not _imports_torch(doc):
        return found
    config = f"torch._dynamo.config.ignore_logging_functions.add(logging.Logger.{method})"
    at = last_import_line(doc.tree)
    edits = [Edit(at, at, ("" if _imports_logging(doc) else "import logging\n") + config + "\n")]
    fix = Fix(
        f"Let torch.compile skip the library's `{method}` calls: `{config}`", code, "ignore-logging", edits
    )
    fix.verify = {"compare": "original", "compile": {"lines": moved_lines(edits, line), "site": site}}
    return [*found, fix]


def _imports_logging(doc: Document) -> bool:
    return any(
        isinstance(s, ast.Import) and any(a.name == "logging" and a.asname is None for a in s.names)
        for s in doc.tree.body
    )


def moved_lines(edits: list[Edit], line: int) -> list[int]:
    """1-based lines of the edited text that hold what was on 0-based `line`: the lines an edit over
    it wrote (none when it removed it), else the same line shifted by the edits above it."""
    shift = 0
    for edit in sorted(edits, key=lambda e: e.first):
        written = len(edit.text.splitlines())
        if edit.first <= line < edit.end:
            return [edit.first + shift + 1 + i for i in range(written)]
        if edit.end <= line and (edit.first < line or edit.first == edit.end):
            shift += written - (edit.end - edit.first)
    return [line + shift + 1]


def _call_statement(doc: Document, line: int) -> tuple[ast.Expr, str] | None:
    """The `print(...)` / logging call statement on `line`, with the function it calls as written."""
    for node in ast.walk(doc.tree):
        if (
            isinstance(node, ast.Expr)
            and node.lineno == line + 1
            and isinstance(node.value, ast.Call)
            and _is_logging(node.value.func)
        ):
            return node, ast.unparse(node.value.func)
    return None


def _is_logging(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id == "print"
    return isinstance(func, ast.Attribute) and func.attr in _LOG_METHODS


def _logging_fixes(doc: Document, code: str, stmt: ast.Expr, function: str) -> list[Fix]:
    lines = doc.text.splitlines(keepends=True)
    first, end = node_lines(lines, stmt)
    ind = indent_of(lines[first])
    shown = ast.unparse(stmt).splitlines()[0][:60]
    guarded = f"{ind}if not torch.compiler.is_compiling():\n" + "".join(
        reindent(lines[first:end], ind, ind + "    ")
    )
    fixes = [
        Fix(f"Run `{shown}` only when not compiling", code, "guard-compiling", [Edit(first, end, guarded)]),
        Fix(
            f"Remove `{shown}` from the compiled code",
            code,
            "remove",
            [Edit(first, end, _left(doc, stmt, ind))],
        ),
    ]
    root = function.split(".")[0]
    if function == "print" or root in _LOG_ROOTS or _bound_at_top(doc, root):
        config = f"torch._dynamo.config.reorderable_logging_functions.add({function})"
        if _imports_torch(doc):
            reorder = Fix(
                f"Let torch.compile move `{function}` out of the graph: `{config}`",
                code,
                "reorder-logging",
                [_top_line(doc, config, root if function != "print" else None)],
            )
            fixes.append(reorder)
    return fixes


def _left(doc: Document, stmt: ast.stmt, ind: str) -> str:
    """What stays where a removed statement was: `pass` when it was its block's only statement."""
    parent = doc.parents.get(stmt)
    bodies = [getattr(parent, f, None) for f in ("body", "orelse", "finalbody")]
    return f"{ind}pass\n" if any(b == [stmt] for b in bodies) else ""


def _imports_torch(doc: Document) -> bool:
    return any(
        isinstance(s, ast.Import) and any(a.name == "torch" and a.asname is None for a in s.names)
        for s in doc.tree.body
    )


def _bound_at_top(doc: Document, name: str) -> bool:
    return _binding_end(doc, name) is not None


def _binding_end(doc: Document, name: str) -> int | None:
    """0-based line after the top-level statement binding `name` (`log = logging.getLogger(...)`)."""
    for stmt in doc.tree.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return stmt.end_lineno or stmt.lineno
    return None


def _top_line(doc: Document, statement: str, after: str | None = None) -> Edit:
    """`statement` at the top level: after the imports, or after the binding of `after`."""
    at = max(last_import_line(doc.tree), (_binding_end(doc, after) or 0) if after else 0)
    return Edit(at, at, statement + "\n")
