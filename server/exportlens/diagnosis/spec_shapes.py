"""Shape tests on dims declared with torch's spec API (`torch.fx.experimental.dynamic_spec`).

A `ShapeVar` dim is unbacked: torch never specialises it, so a shape test on it
(`if x.shape[0] > 16:`) fails as a data-dependent guard (`u0 > 16`), not as the constraint
violation a `Dim` gives.  It is the same mistake as `dim-range-narrowed` and has the spec's own
fix: bound the ShapeVar so that torch can decide the test the way the example does
(`ShapeVar("batch", max=16)`), from torch's condition and the example's size.  Found in the
buffer's own export call: `dynamic_shapes=ShapesSpec(params=ParamsSpec({"x": TensorSpec([...])}))`
or a bare `ParamsSpec(...)`.
"""

from __future__ import annotations

import ast
import re

from ..discovery import discovery_of
from ..document import Document
from .kind import Kind

_COND = re.compile(r"^u\d+ (?P<op>>=|<=|>|<) (?P<n>-?\d+)$")
_FACTORIES = {"randn", "rand", "ones", "zeros", "empty"}


def shape_test(doc: Document, module: str, snippet: str, cond: str) -> Kind | None:
    """The shape test in `snippet` as a dim-range-narrowed Kind on a ShapeVar, else None."""
    try:
        tree = doc.tree
        test = ast.parse(snippet.rstrip(":"), mode="eval")
    except SyntaxError:
        return None
    found = _export_call(tree, doc, module)
    params = _params(tree, found[0]) if found is not None else None
    if found is None or params is None or not (m := _COND.match(cond)):
        return None
    call, order = found
    for param, dim in _shape_reads(test):
        entry = params.get(param)
        var = entry[dim] if entry is not None and dim < len(entry) else None
        declared = _shape_var(tree, var.id) if isinstance(var, ast.Name) else None
        size = _example_size(call, order, param, dim)
        if declared is None or size is None or not isinstance(var, ast.Name):
            continue
        key, value = bound_for(m["op"], int(m["n"]), size)
        keywords = {str(k.arg): ast.unparse(k.value) for k in declared.keywords if k.arg}
        keywords[key] = str(value)
        args = [ast.unparse(a) for a in declared.args] + [f"{k}={v}" for k, v in keywords.items()]
        suggested = f"{var.id} = ShapeVar({', '.join(args)})"
        return Kind(
            "dim-range-narrowed",
            f"`{var.id}` is a ShapeVar (unbacked, never specialised): torch cannot decide "
            f"`{snippet.rstrip(':')}` for every size it allows",
            {
                "dim": var.id,
                "spec_bounds": [suggested],  # ExportLens's, not torch's: no "torch suggests"
                "cond": cond,
                "hint": f"bound the ShapeVar as the example is (`{suggested}`), or remove the shape test",
            },
        )
    return None


def bound_for(op: str, n: int, size: int) -> tuple[str, int]:
    """The ShapeVar bound under which `u op n` is always what it is for the example's size."""
    holds = {">": size > n, ">=": size >= n, "<": size < n, "<=": size <= n}[op]
    if op in (">", ">="):
        return ("min", n + 1 if op == ">" else n) if holds else ("max", n if op == ">" else n - 1)
    return ("max", n - 1 if op == "<" else n) if holds else ("min", n if op == "<" else n + 1)


def _export_call(tree: ast.Module, doc: Document, module: str) -> tuple[ast.Call, list[str]] | None:
    """The module's export call in the buffer, and its forward's parameters (the examples' order)."""
    subject = next((t for t in discovery_of(doc).subjects if t.name == module), None)
    if subject is None or subject.inputs.get("kind") != "export-call":
        return None
    call = subject.call
    forward = next(
        (
            f
            for c in tree.body
            if isinstance(c, ast.ClassDef) and c.name == subject.class_name
            for f in c.body
            if isinstance(f, ast.FunctionDef) and f.name == "forward"
        ),
        None,
    )
    if call is None or forward is None:
        return None
    return call, [a.arg for a in forward.args.args[1:]]


def _called(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Call) and ast.unparse(node.func).rsplit(".", 1)[-1] == name


def _params(tree: ast.Module, call: ast.Call) -> dict[str, list[ast.expr]] | None:
    """{param: TensorSpec dims} of the call's ShapesSpec / ParamsSpec, or None if it uses none."""
    shapes = _value(tree, next((k.value for k in call.keywords if k.arg == "dynamic_shapes"), None))
    if isinstance(shapes, ast.Call) and _called(shapes, "ShapesSpec"):
        given = next((k.value for k in shapes.keywords if k.arg == "params"), None)
        shapes = _value(tree, given if given is not None else (shapes.args[0] if shapes.args else None))
    if not (isinstance(shapes, ast.Call) and _called(shapes, "ParamsSpec") and shapes.args):
        return None
    table = _value(tree, shapes.args[0])
    if not isinstance(table, ast.Dict):
        return None
    found = {}
    for key, value in zip(table.keys, table.values, strict=True):
        spec = _value(tree, value)
        if isinstance(key, ast.Constant) and isinstance(spec, ast.Call) and _called(spec, "TensorSpec"):
            dims = spec.args[0] if spec.args else None
            if isinstance(dims, ast.List | ast.Tuple):
                found[str(key.value)] = list(dims.elts)
    return found


def _value(tree: ast.Module, node: ast.expr | None) -> ast.expr | None:
    """A name's assigned value (`spec = ShapesSpec(...)` then `dynamic_shapes=spec`), else `node`."""
    if isinstance(node, ast.Name):
        for stmt in ast.walk(tree):
            if isinstance(stmt, ast.Assign):
                for target, value in _pairs(stmt):
                    if target == node.id:
                        return value
    return node


def _shape_reads(test: ast.Expression) -> list[tuple[str, int]]:
    """(param, dim) of each `x.shape[k]`, `x.size(k)`, `x.size()[k]`, `len(x)` in the test."""
    reads = []
    for node in ast.walk(test):
        if isinstance(node, ast.Subscript) and (k := _int(node.slice)) is not None:
            base = node.value
            if isinstance(base, ast.Attribute) and base.attr == "shape":
                reads.append((_name(base.value), k))
            elif isinstance(base, ast.Call) and _called(base, "size") and not base.args:
                reads.append((_name(base.func), k))
        elif isinstance(node, ast.Call) and _called(node, "size") and node.args:
            if (k := _int(node.args[0])) is not None:
                reads.append((_name(node.func), k))
        elif isinstance(node, ast.Call) and _called(node, "len") and node.args:
            reads.append((_name(node.args[0]), 0))
    return [(name, k) for name, k in reads if name]


def _int(node: ast.expr) -> int | None:
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def _name(node: ast.expr) -> str:
    """`x` of `x`, of `x.size` (the method's object)."""
    if isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _shape_var(tree: ast.Module, name: str) -> ast.Call | None:
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target, value in _pairs(node):
                if target == name and _called(value, "ShapeVar"):
                    assert isinstance(value, ast.Call)
                    return value
    return None


def _pairs(node: ast.Assign) -> list[tuple[str, ast.expr]]:
    target, value = node.targets[0], node.value
    if isinstance(target, ast.Name):
        return [(target.id, value)]
    if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
        return [(t.id, v) for t, v in zip(target.elts, value.elts, strict=True) if isinstance(t, ast.Name)]
    return []


def _example_size(call: ast.Call, order: list[str], param: str, dim: int) -> int | None:
    """The literal size of `dim` of the example for `param` (`torch.randn(8, 16)`)."""
    examples = call.args[1] if len(call.args) > 1 else None
    if not isinstance(examples, ast.Tuple | ast.List) or param not in order:
        return None
    index = order.index(param)
    example = examples.elts[index] if index < len(examples.elts) else None
    if not (isinstance(example, ast.Call) and ast.unparse(example.func).rsplit(".", 1)[-1] in _FACTORIES):
        return None
    sizes = list(example.args)
    if sizes and isinstance(sizes[0], ast.Tuple | ast.List):
        sizes = list(sizes[0].elts)
    node = sizes[dim] if dim < len(sizes) else None
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, int) else None
