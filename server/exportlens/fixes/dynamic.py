"""On an export call without `dynamic_shapes`: "make dim k of `x` dynamic".

The first proof exports with an unbounded `Dim`; when torch refuses it with suggested fixes, the
worker applies them (`refine_dynamic_shapes_from_suggested_fixes`) and exports again, and the
fix offered is redone with the range torch proved (`with_range`), or says why the dim cannot be
dynamic (the code fixes its size).
"""

from __future__ import annotations

import ast
from typing import Any

from ..discovery import discovery_of
from ..document import Document
from ..syntax import span
from ..worker.wire.export_call import export_argument
from .dims import forward_params, is_bound, rank_of, size_arg
from .edits import ensure_import, span_edits
from .model import Fix
from .small import export_call
from .style import spec_imports, tensor_spec, uses_spec_api


def dynamic_fixes(doc: Document, limit: int = 4) -> list[Fix]:
    """On export calls without `dynamic_shapes`: "make dim k of `x` dynamic" (the worker narrows the
    range with torch's suggested fixes if the full range does not export; see `with_range`)."""
    tree = doc.tree
    fixes: list[Fix] = []
    for subject in discovery_of(doc).subjects:
        call = export_call(doc, subject.name) if subject.inputs.get("kind") == "export-call" else None
        if call is None or export_argument(call, "dynamic_shapes") is not None:
            continue
        examples = export_argument(call, "args")
        if not isinstance(examples, (ast.Tuple, ast.List)):
            continue
        params = forward_params(tree, subject.class_name)
        for index, example in enumerate(examples.elts[: len(params)]):
            for dim in range(4):
                size = size_arg(example, dim)
                if (
                    size is not None
                    and isinstance(size.value, int)
                    and size.value >= 2
                    and len(fixes) < limit
                ):
                    fixes.append(
                        _make_dynamic(
                            doc, call, params[index], dim, None, None, subject.name, rank_of(example)
                        )
                    )
    return fixes


def _make_dynamic(
    doc: Document,
    call: ast.Call,
    name: str,
    dim: int,
    low: int | None,
    high: int | None,
    module: str,
    rank: int | None = None,  # the example's; the spec API needs every dim of the tensor
) -> Fix:
    tree = doc.tree
    text = ast.get_source_segment(doc.text, call) or ast.unparse(call)
    head = text[:-1].rstrip()
    head += " " if head.endswith(",") else ", "
    if uses_spec_api(tree) and rank is not None:  # the file's own API: unbacked, nothing to refine
        declared = tensor_spec(name, dim, rank)
        new = f'{head}dynamic_shapes=ShapesSpec(params=ParamsSpec({{"{name}": {declared}}})))'
        edits = span_edits(doc, [(call, new)]) + spec_imports(tree)
        refine = False
    else:
        bounds = "".join(f", {k}={v}" for k, v in (("min", low), ("max", high)) if v)  # min 0: the default
        declared = f'Dim("{name}_dim{dim}"{bounds})'
        new = f'{head}dynamic_shapes={{"{name}": {{{dim}: {declared}}}}})'
        edits = span_edits(doc, [(call, new)])
        if not is_bound(tree, "Dim"):
            edits += ensure_import(doc, "torch.export", "Dim")
        refine = True
    fix = Fix(f"Make dim {dim} of `{name}` dynamic: `{declared}`", "make-dynamic", "dynamic", edits)
    fix.verify = {"compare": "self", "refine": refine}
    fix.module, fix.line = module, call.lineno - 1
    fix.data = {"call": list(span(call)), "input": name, "dim": dim}
    return fix


def with_range(doc: Document, fix: Fix, refined: Any) -> Fix | str:
    """The make-dynamic fix redone with the range torch proved (or why the dim cannot be dynamic)."""
    spec = refined.get(fix.data["input"], {}) if isinstance(refined, dict) else {}
    value = spec.get(str(fix.data["dim"])) if isinstance(spec, dict) else None
    if isinstance(value, int):
        return f"the code fixes this size to {value}: it cannot be dynamic"
    if not isinstance(value, dict):
        return "torch's suggested fixes did not keep this dim"
    place = fix.data["call"]
    call = next(n for n in ast.walk(doc.tree) if isinstance(n, ast.Call) and list(span(n)) == place)
    low, high = value.get("min"), value.get("max")
    return _make_dynamic(doc, call, fix.data["input"], fix.data["dim"], low, high, str(fix.module))
