"""Small AST helpers shared by discovery and diagnosis: names, imports, positions."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator

EXPORT_FUNCTIONS = {"export", "draft_export"}
# A library wrapper whose `.export(input_ids=...)` method calls `torch.export.export` itself.
LIBRARY_EXPORTERS = {"transformers.integrations.executorch.TorchExportableModuleForDecoderOnlyLM"}
# A library function that wraps the model and calls `torch.export.export` (worker/job/wrapper_export.py).
LIBRARY_EXPORT_FUNCTIONS = {"transformers.integrations.executorch.convert_and_export_with_cache"}
TOKEN_KEYWORDS = ("input_ids", "inputs_embeds")


def dotted(node: ast.AST) -> str | None:
    """`torch.nn.Module` for the expression `torch.nn.Module`; None if not a name chain."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _import_bindings(tree: ast.Module) -> Iterator[tuple[str, str]]:
    """(local name, full dotted name) for each `import` / `from ... import` in the file, in order."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                head = alias.name.partition(".")[0]
                yield alias.asname or head, alias.name if alias.asname else head
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                yield alias.asname or alias.name, f"{node.module}.{alias.name}"


def torch_imports(tree: ast.Module) -> dict[str, str]:
    """Local names bound by `from torch... import X [as Y]` / `import torch... as Y`, and the names
    the file binds to a library wrapper's instance (`exporter_instances`)."""
    imports = {
        local: full
        for local, full in _import_bindings(tree)
        if full.partition(".")[0] == "torch" or full in LIBRARY_EXPORTERS | LIBRARY_EXPORT_FUNCTIONS
    }
    return imports | exporter_instances(tree, imports)


def exporter_instances(tree: ast.Module, imports: dict[str, str]) -> dict[str, str]:
    """`name -> "Class()"` for each name every assignment of the file binds to a LIBRARY_EXPORTERS
    class's instance (`wrapper = TorchExportableModuleForDecoderOnlyLM(model, ...)`): whose
    `.export(input_ids=...)` is the library's export. A name also bound to anything else is not
    (which object reaches the call only running says)."""
    bound: dict[str, set[str | None]] = {}
    for node in ast.walk(tree):
        pairs: list[tuple[ast.expr | None, ast.expr | None]]
        if isinstance(node, ast.Assign):
            pairs = [(t, node.value) for t in node.targets]
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
            pairs = [(node.target, node.value)]
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.withitem)):
            pairs = [(node.target if isinstance(node, (ast.For, ast.AsyncFor)) else node.optional_vars, None)]
        else:
            continue
        for target, value in pairs:
            if isinstance(target, ast.Name):
                bound.setdefault(target.id, set()).add(_exporter_built(value, imports))
            elif target is not None:  # unpacking: the names it binds hold something else
                for name in ast.walk(target):
                    if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                        bound.setdefault(name.id, set()).add(None)
    return {
        name: f"{next(iter(built))}()"
        for name, built in bound.items()
        if len(built) == 1 and None not in built
    }


def _exporter_built(value: ast.expr | None, imports: dict[str, str]) -> str | None:
    if isinstance(value, ast.Call) and (full := resolve(dotted(value.func), imports)) in LIBRARY_EXPORTERS:
        return full
    return None


@functools.lru_cache(maxsize=4)  # the same (cached, read-only) tree for every module of a file
def import_aliases(tree: ast.Module) -> dict[str, str]:
    """Every imported local name -> its full dotted name (the last binding wins)."""
    return dict(_import_bindings(tree))


def resolve(name: str | None, imports: dict[str, str]) -> str | None:
    """Expand the first component of a dotted name through the file's imports."""
    if not name:
        return None
    head, _, rest = name.partition(".")
    full = imports.get(head, head)
    return f"{full}.{rest}" if rest else full


def is_export_call(node: ast.AST, imports: dict[str, str]) -> bool:
    if not isinstance(node, ast.Call) or (not node.args and not node.keywords):
        return False
    full = resolve(dotted(node.func), imports)
    if not full:
        return is_library_export_call(node, imports)  # `Wrapper(model).export(input_ids=...)`
    module, _, function = full.rpartition(".")
    if function in EXPORT_FUNCTIONS and module in {"torch.export", "torch.export.export"}:
        return True
    return full in LIBRARY_EXPORT_FUNCTIONS or is_library_export_call(node, imports)


def is_library_export_call(node: ast.Call, imports: dict[str, str]) -> bool:
    """`wrapper.export(input_ids=...)` on a LIBRARY_EXPORTERS instance: a name the file binds only
    to one (`exporter_instances`, in `imports`), or the construction itself."""
    if not (
        isinstance(node.func, ast.Attribute)
        and node.func.attr == "export"
        and any(k.arg in TOKEN_KEYWORDS for k in node.keywords)
    ):
        return False
    receiver = node.func.value
    if isinstance(receiver, ast.Name):
        return imports.get(receiver.id) in {f"{c}()" for c in LIBRARY_EXPORTERS}
    return _exporter_built(receiver, imports) is not None


def contains_export_call(node: ast.AST, imports: dict[str, str]) -> bool:
    return any(is_export_call(child, imports) for child in ast.walk(node))


def child_bodies(stmt: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The statement lists nested directly in a compound statement."""
    for name in ("body", "orelse", "finalbody"):
        body = getattr(stmt, name, None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            yield body
    for handler in getattr(stmt, "handlers", []) or []:
        yield handler.body
    for case in getattr(stmt, "cases", []) or []:
        yield case.body


def literal_int(node: ast.AST | None, names: dict[str, int]) -> int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id)
    return None


def span(node: ast.AST) -> tuple[int, int, int, int]:
    """(line, col, end_line, end_col): 1-based lines, UTF-8 byte columns, as `ast` gives them."""
    line = int(getattr(node, "lineno", 1))
    end_line = getattr(node, "end_lineno", None) or line
    return (
        line,
        int(getattr(node, "col_offset", 0)),
        int(end_line),
        int(getattr(node, "end_col_offset", 0) or 0),
    )


def module_globals(tree: ast.Module) -> dict[str, ast.expr | None]:
    """Module-level names -> the value bound, or None when bound more than once (or not by `=`)."""
    names: dict[str, ast.expr | None] = {}
    for stmt in tree.body:
        if not isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            continue
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        for target in targets:
            if isinstance(target, ast.Name):
                once = target.id not in names and not isinstance(stmt, ast.AugAssign)
                names[target.id] = stmt.value if once else None
    return names


def mentions(node: ast.AST, names: set[str]) -> bool:
    """Whether `node` uses any of `names`, as a bare name or as an attribute."""
    return any(
        (isinstance(n, ast.Attribute) and n.attr in names) or (isinstance(n, ast.Name) and n.id in names)
        for n in ast.walk(node)
    )


def is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"
