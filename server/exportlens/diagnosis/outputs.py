"""A forward that returns an object torch cannot flatten (a `@dataclass`, a plain class).

torch.export flattens outputs with pytree; a class it does not know stops the export at the end,
after tracing everything. Non-strict says "Found <class 'm.DetectorOutput'> in output, which is
not a known type"; strict (dynamo) "Encountered unrecognized type
UserDefinedObjectVariable(DetectorOutput) at output 0". Neither names a user line. The finding
belongs on the `return` that builds the object, with what to register: the child saw that
`return` in its eager pass (`output_site`, worker/capture/output_site.py); without it (no eager pass),
the `return` in the checked file's class that builds the class.
"""

from __future__ import annotations

import ast
import re

from ..document import Document
from ..reading import read_document
from ..worker.wire.records import FailureRecord
from .context import DiagnosisContext
from .kinds import Kind
from .libraries import installed
from .library_export import SEQ2SEQ_CACHES, cache_advice, recipes, transformers_folder
from .locate import Place, is_workspace

CODE = "unflattenable-output"
_NOT_PYTREE_OUTPUT = re.compile(
    r"Found <class '(?P<type>[\w.]+)'> in outputs?, which is not a known type"
    r"|Encountered unrecognized type UserDefinedObjectVariable\((?P<dynamo>[\w.]+)\) at output"
)


def output_kind(record: FailureRecord) -> Kind | None:
    """The kind of a failure that is an unflattenable output, else None."""
    match = _NOT_PYTREE_OUTPUT.search(str(record.get("message", "")))
    if match is None:
        return None
    full = match["type"] or match["dynamo"]
    name = full.rpartition(".")[2]
    hint = (
        f"register `{name}` with torch: `torch.export.register_dataclass({name})` for a dataclass, else "
        f"`torch.utils._pytree.register_pytree_node({name}, flatten, unflatten)`; or return a tuple / "
        f"dict of tensors"
    )
    fix = {"type": full, "class": name, "hint": hint}
    if full.startswith("transformers.") and "Cache" in name:
        # the library's class: registering it is the library's own helpers' job (library_export.py)
        package = transformers_folder(record)
        version = installed(package + "/__init__.py") if package else None
        found = recipes(package) if package else None
        fix = {"type": full, "class": name, "library": "transformers"}
        fix["hint"] = cache_advice(found, version[1] if version else None, name)
        if found is not None and found.wrapper and name not in SEQ2SEQ_CACHES:
            # what fixes/cache_wrapper.py rewrites the call to, as this installed copy defines it
            fix["wrapper"] = {
                "name": found.wrapper,
                "arguments": list(found.wrapper_arguments),
                "export": list(found.export_arguments),
                "requires": [list(pair) for pair in found.requires],
            }
    elif "Cache" in name:
        hint = f"export without the cache (`use_cache=False` in the config or call), or {hint}"
        fix["hint"] = hint
    return Kind(CODE, f"`{full}`", fix, where="return")


def return_place(ctx: DiagnosisContext, class_name: str, record: FailureRecord) -> Place | None:
    """The `return` that built the object: the one the eager pass saw, else the one in the
    module's forward (in the checked file) that builds `class_name`, else its last `return`."""
    site = record.get("output_site")
    path, line, name = (site["path"], site["line"], site.get("name", "")) if site else ("", None, "")
    if isinstance(line, int) and is_workspace(path, ctx):
        doc = ctx.document if path == ctx.path else _document(path)
        if doc is not None:
            returns = [r for r in _returns(doc.tree) if r.lineno <= line <= (r.end_lineno or r.lineno)]
            if returns:
                return _place(doc, path, max(returns, key=lambda r: r.lineno), name)
    if ctx.document.syntax_error is not None:
        return None
    tree = ctx.document.tree
    module = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == ctx.class_name), None)
    forward = next(
        (
            s
            for s in (module.body if module else [])
            if isinstance(s, ast.FunctionDef) and s.name == "forward"
        ),
        None,
    )
    if forward is None:
        return None
    returns = _returns(forward)
    building = [r for r in returns if _builds(r.value, class_name)]
    chosen = (building or sorted(returns, key=lambda r: r.lineno))[-1:] if returns else []
    return _place(ctx.document, ctx.path, chosen[0], "forward") if chosen else None


def _document(path: str) -> Document | None:
    try:
        doc = read_document(path)
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    return doc if doc.syntax_error is None else None


def _returns(node: ast.AST) -> list[ast.Return]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Return) and n.value is not None]


def _place(doc: Document, path: str, node: ast.Return, name: str) -> Place:
    """The `return` statement's span (its first line when it runs over several)."""
    line = node.lineno - 1
    end_line = (node.end_lineno or node.lineno) - 1
    end = node.end_col_offset if end_line == line else None
    span = doc.source_text.span(line, node.col_offset, line if end is not None else None, end)
    return Place(path, span, name)


def _builds(value: ast.expr | None, class_name: str) -> bool:
    return (
        any(
            isinstance(n, ast.Call)
            and (getattr(n.func, "id", None) or getattr(n.func, "attr", None)) == class_name
            for n in ast.walk(value)
        )
        if value is not None
        else False
    )
