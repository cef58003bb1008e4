"""Dim fixes from torch's suggested fixes: edit the `Dim(...)` declarations and the export call's
`dynamic_shapes`, all in one edit.

- `batch = Dim('batch', max=16)`: the declaration of `batch` gets the new range (or the inline
  `Dim("batch")` in `dynamic_shapes`; a new Dim such as `_h` is declared before the call);
- `by = bx` / `dx = dy + 1`: `dynamic_shapes` uses `bx` / `(dy + 1)` where it used `by` / `dx`;
- `batch = 8`: `dynamic_shapes` uses the static size 8 there;
- size 0/1 examples (dim-example-too-small): the example tensor gets size 2 on that dim instead
  (torch's own suggestion, `bx = 1`, would remove the dynamism).
`from torch.export import Dim` is added when the new text needs it.  The worker proves it exports.
"""

from __future__ import annotations

import ast
from typing import Any

from ..document import Document
from ..worker.wire.export_call import export_argument
from .edits import Edit, ensure_import, indent_of, span_edits
from .model import Fix
from .small import export_call

FACTORIES = {"randn", "rand", "ones", "zeros", "empty", "full"}


def dim_fixes(doc: Document, line: int, code: str, data: dict[str, Any], module: str | None) -> list[Fix]:
    call = export_call(doc, module)
    if call is None:
        return []
    tree = doc.tree
    shapes = next((k.value for k in call.keywords if k.arg == "dynamic_shapes"), None)
    if code == "dim-example-too-small":
        return _bigger_example(doc, call, shapes, str(data.get("dim", "")), code, module)
    # torch's suggested fixes (Dim), or the bound a ShapeVar (the spec API) needs for a shape test
    bounds = [s for s in data.get("spec_bounds") or [] if isinstance(s, str)]
    suggested = [s for s in data.get("suggested") or [] if isinstance(s, str)] or bounds
    if not suggested or shapes is None:
        return []
    replacements: list[tuple[ast.AST, str]] = []
    declare: list[str] = []
    titles = []
    for text in suggested:
        try:
            (stmt,) = ast.parse(text).body
        except (SyntaxError, ValueError):
            return []
        if not (isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)):
            return []
        name, value = stmt.targets[0].id, stmt.value
        if isinstance(value, ast.Call):
            where = _declaration(tree, name) or _inline(shapes, name)
            if where is not None:
                func = ast.get_source_segment(doc.text, where.func) or "Dim"
                replacements.append((where, func + ast.unparse(value)[len(ast.unparse(value.func)) :]))
            else:
                declare.append(text)
            ranged = where is not None and any(k.arg in ("min", "max") for k in value.keywords)
            titles.append(f"narrow `{name}`: `{text}`" if ranged else f"declare `{text}`")
            continue
        uses: list[ast.AST] = [n for n in ast.walk(shapes) if isinstance(n, ast.Name) and n.id == name]
        uses += [c for c in ast.walk(shapes) if _is_dim_call(c, name)]
        if not uses:
            return []
        new = ast.unparse(value)
        if isinstance(value, ast.BinOp):
            new, title = f"({new})", f"derive `{text}`"
        elif isinstance(value, ast.Constant):
            title = f"make `{name}` static ({new})"
        else:
            title = f"use the same Dim for both (`{text}`)"
        replacements += [(u, new) for u in uses]
        titles.append(title)
    edits = span_edits(doc, replacements)
    if declare:
        stmt_line = _statement_line(tree, call)
        ind = indent_of(doc.text.splitlines()[stmt_line])
        edits.append(Edit(stmt_line, stmt_line, "".join(f"{ind}{d}\n" for d in declare)))
    if any("Dim(" in d for d in declare) and not is_bound(tree, "Dim"):
        edits += ensure_import(doc, "torch.export", "Dim")
    title = "Dims: " + "; ".join(titles)
    why = " (as the example is)" if bounds else " (torch's suggested fix)"
    return [Fix(title[:1].upper() + title[1:] + why, code, "dims", edits, module=module)]


def _is_dim_call(node: ast.AST, name: str) -> bool:
    if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)):
        return False
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return called == "Dim" and node.args[0].value == name


def _declaration(tree: ast.Module, name: str) -> ast.Call | None:
    """The `Dim(...)` call bound to `name` (`name = Dim(...)` or `a, name = Dim(...), Dim(...)`)."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target, value = node.targets[0], node.value
        if isinstance(target, ast.Name) and target.id == name and isinstance(value, ast.Call):
            return value
        if (
            isinstance(target, ast.Tuple)
            and isinstance(value, ast.Tuple)
            and len(target.elts) == len(value.elts)
        ):
            for t, v in zip(target.elts, value.elts, strict=True):
                if isinstance(t, ast.Name) and t.id == name and isinstance(v, ast.Call):
                    return v
    return None


def _inline(shapes: ast.expr, name: str) -> ast.Call | None:
    return next((c for c in ast.walk(shapes) if isinstance(c, ast.Call) and _is_dim_call(c, name)), None)


def _statement_line(tree: ast.Module, call: ast.Call) -> int:
    """0-based first line of the statement holding `call`."""
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            for stmt in getattr(node, field, None) or []:
                if isinstance(stmt, ast.stmt) and any(n is call for n in ast.walk(stmt)):
                    if not any(any(n is call for n in ast.walk(s)) for s in _children(stmt)):
                        return stmt.lineno - 1
    return call.lineno - 1


def _children(stmt: ast.stmt) -> list[ast.stmt]:
    return [s for f in ("body", "orelse") for s in getattr(stmt, f, None) or [] if isinstance(s, ast.stmt)]


def is_bound(tree: ast.Module, name: str) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
            (a.asname or a.name) == name for a in node.names
        ):
            return True
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id == name:
            return True
    return False


def _bigger_example(
    doc: Document,
    call: ast.Call,
    shapes: ast.expr | None,
    dim: str,
    code: str,
    module: str | None,
) -> list[Fix]:
    """Size 2 instead of 0/1 in the example tensors on the dims that use Dim `dim`."""
    given = export_argument(call, "args")
    if shapes is None or not isinstance(given, (ast.Tuple, ast.List)):
        return []
    examples = given.elts
    params = forward_params(doc.tree, module)
    entries: list[tuple[int, ast.expr]] = []
    if isinstance(shapes, ast.Dict):
        for key, value in zip(shapes.keys, shapes.values, strict=True):
            if isinstance(key, ast.Constant) and key.value in params:
                entries.append((params.index(key.value), value))
    elif isinstance(shapes, (ast.Tuple, ast.List)):
        entries = list(enumerate(shapes.elts))
    replacements: list[tuple[ast.AST, str]] = []
    shown = []
    for index, spec in entries:
        if index >= len(examples) or not isinstance(spec, ast.Dict):
            continue
        for key, value in zip(spec.keys, spec.values, strict=True):
            uses_dim = (isinstance(value, ast.Name) and value.id == dim) or _is_dim_call(value, dim)
            if not (uses_dim and isinstance(key, ast.Constant) and isinstance(key.value, int)):
                continue
            size = size_arg(examples[index], key.value)
            if size is not None and size.value in (0, 1):
                replacements.append((size, "2"))
                shown.append(f"dim {key.value} of `{params[index] if index < len(params) else index}`")
    if not replacements:
        return []
    title = f"Use an example of size 2 for {', '.join(shown)} (sizes 0/1 make `{dim}` a constant)"
    return [Fix(title, code, "example", span_edits(doc, replacements), module=module)]


def rank_of(example: ast.expr) -> int | None:
    """How many sizes `torch.randn(2, 16)` / `torch.ones((2, 16))` gives, if they are written out."""
    if not (isinstance(example, ast.Call) and isinstance(example.func, ast.Attribute)):
        return None
    if example.func.attr not in FACTORIES - {"full"}:
        return None
    sizes = list(example.args)
    if sizes and isinstance(sizes[0], (ast.Tuple, ast.List)):
        sizes = list(sizes[0].elts)
    return len(sizes) if all(isinstance(s, ast.Constant) for s in sizes) else None


def size_arg(example: ast.expr, dim: int) -> ast.Constant | None:
    """The literal size of dimension `dim` in `torch.randn(1, 16)` / `torch.ones((1, 16))`."""
    if not (isinstance(example, ast.Call) and isinstance(example.func, ast.Attribute)):
        return None
    if example.func.attr not in FACTORIES:
        return None
    sizes = list(example.args)
    if sizes and isinstance(sizes[0], (ast.Tuple, ast.List)):
        sizes = list(sizes[0].elts)
    elif example.func.attr == "full":
        return None
    node = sizes[dim] if dim < len(sizes) else None
    return node if isinstance(node, ast.Constant) and isinstance(node.value, int) else None


def forward_params(tree: ast.Module, module: str | None) -> list[str]:
    for cls in tree.body:
        if isinstance(cls, ast.ClassDef) and cls.name == module:
            for fn in cls.body:
                if isinstance(fn, ast.FunctionDef) and fn.name == "forward":
                    return [a.arg for a in fn.args.args[1:]]
    return []
