"""A causal LM's export that refuses on its `DynamicCache` output (issue 44, item 2): the export call
rewritten to the installed transformers' exportable wrapper, which keeps a static cache.

`torch.export.export(model, (ids,), dynamic_shapes=...)` becomes, at the call's indentation:

    model.generation_config.cache_implementation = "static"
    exportable = TorchExportableModuleForDecoderOnlyLM(model, batch_size=ids.shape[0], max_cache_len=32)
    seq_cached = torch.export.Dim("seq_cached", max=31)
    program = exportable.export(input_ids=ids, cache_position=torch.arange(ids.shape[1]), dynamic_shapes=...)

What the wrapper is called, its arguments and the `generation_config` values its constructor
asserts come from the finding's data: read from the installed copy's `integrations/executorch.py`
(diagnosis/library_export.py), never from a table of versions. `max_cache_len` is the user's
sequence Dim's max when it has one, else the model config's `max_position_embeddings`; one Dim on
`input_ids` dim 1 and `cache_position` dim 0, below it, lets the program take the one-token decode
step too. The proof (worker/job/decode_proof.py) exports the rewrite and compares its prefill and
first decode step with eager generation; a call the wrapper cannot take gets no fix.

The static cache is allocated for one batch size, so a batch Dim the user declared cannot stay
dynamic (torch refuses: the code specialized it to the example's batch); the title says so. The
sequence Dim's `min` stays when the one-token step still fits it: torch checks no lower bound of 2
or less at run time (sizes 0 and 1 are its specialization, not a guard), a larger one would refuse
the decode step, so it is dropped, and the title says that too (torch 2.13 and 2.15 by hand; the
proof runs that step on each fix).
"""

from __future__ import annotations

import ast
from typing import Any

from ..document import Document
from .edits import Edit, ensure_import, indent_of, span_edits, unique_name
from .model import Fix
from .small import export_call

MODULE = "transformers.integrations.executorch"
BATCH = ("batch_size", "max_batch_size")  # the constructor's name for it, whichever the copy has
UNCHECKED_MIN = 2  # the largest Dim `min` torch does not check at run time: the decode step's 1 passes


def wrapper_fixes(doc: Document, code: str, data: dict[str, Any], module: str | None) -> list[Fix]:
    wrapper = data.get("wrapper")
    if code != "unflattenable-output" or data.get("library") != "transformers" or not wrapper:
        return []
    name, arguments = str(wrapper["name"]), list(wrapper.get("arguments") or [])
    batch = next((a for a in BATCH if a in arguments), None)
    takes = set(wrapper.get("export") or [])
    if batch is None or "max_cache_len" not in arguments or not {"input_ids", "cache_position"} <= takes:
        return []  # this copy's wrapper is not the one this rewrite knows how to call
    call = export_call(doc, module)
    found = _parts(doc, call) if call is not None else None
    if call is None or found is None or "dynamic_shapes" not in takes or "torch" not in _names(doc.tree):
        return []  # (the rewrite writes `torch.arange` and `torch.export.Dim`)
    model, ids, (dim_min, dim_max), batch_dim, strict = found
    statement = _statement(doc.tree, call)
    if statement is None:
        return []
    lines = doc.text.splitlines(keepends=True)
    ind = indent_of(lines[statement.lineno - 1])
    taken = _names(doc.tree)
    before: list[str] = []
    if not isinstance(model, (ast.Name, ast.Attribute)):  # `LlamaForCausalLM(config).eval()`: bound once
        bound = unique_name(taken, "lm")
        before.append(f"{bound} = {_text(doc, model)}")
        model_text = bound
    else:
        model_text = _text(doc, model)
    if not isinstance(ids, ast.Name):
        bound = unique_name(taken, "input_ids")
        before.append(f"{bound} = {_text(doc, ids)}")
        ids_text = bound
    else:
        ids_text = ids.id
    notes: list[str] = []
    if dim_max is not None:
        length, below, said = (
            str(dim_max),
            str(dim_max - 1),
            f"max_cache_len={dim_max}, the sequence Dim's max",
        )
    else:  # no Dim to bound it: the config's longest sequence, read when the script runs
        length = unique_name(taken, "cache_len")
        before.append(f"{length} = {model_text}.config.max_position_embeddings")
        below, said = f"{length} - 1", "max_cache_len from the config's `max_position_embeddings`"
    exportable, seq = unique_name(taken, "exportable"), unique_name(taken, "seq_cached")
    for attribute, value in wrapper.get("requires") or []:
        if value != "True":  # `use_cache`: already so, or the model would return no cache
            before.append(f"{model_text}.generation_config.{attribute} = {value}")
    low = ""
    if dim_min is not None and dim_min <= UNCHECKED_MIN:
        low = f"min={dim_min}, "
        notes.append(f"its min={dim_min} kept")
    elif dim_min is not None:
        notes.append(f"its min={dim_min} dropped: the one-token decode step goes through the same Dim")
    if batch_dim is not None:
        notes.append(
            f"the batch is not dynamic: a static cache is sized for the example's batch "
            f"(`{ids_text}.shape[0]`), so `{batch_dim}` is dropped"
        )
        before.append(f"# the static cache holds {ids_text}.shape[0] sequences: the batch is fixed")
    before += [
        f"{exportable} = {name}({model_text}, {batch}={ids_text}.shape[0], max_cache_len={length})",
        f'{seq} = torch.export.Dim("{seq}", {low}max={below})  # the prompt and each next token',
    ]
    shapes = f'{{"input_ids": {{1: {seq}}}, "cache_position": {{0: {seq}}}}}'
    given = f",\n{ind}    strict={_text(doc, strict)}" if strict is not None and "strict" in takes else ""
    inner = ind + "    "
    new = (
        f"{exportable}.export(\n{inner}input_ids={ids_text},\n"
        f"{inner}cache_position=torch.arange({ids_text}.shape[1]),\n"
        f"{inner}dynamic_shapes={shapes}{given},\n{ind})"
    )
    first, lead = statement.lineno - 1, "".join(f"{ind}{b}\n" for b in before)
    (replaced,) = span_edits(doc, [(call, new)])
    if replaced.first == first:  # one edit: an insertion where another starts is two LSP edits at one spot
        edits = [Edit(first, replaced.end, lead + replaced.text)]
    else:
        edits = [Edit(first, first, lead), replaced]
    edits += ensure_import(doc, MODULE, name)
    title = f"Export with a static cache through transformers' `{name}` ({'; '.join([said, *notes])})"
    fix = Fix(title, code, "cache-wrapper", edits, {"compare": "self", "decode": True})
    fix.module, fix.line = module, call.lineno - 1
    return [fix]


Bounds = tuple[int | None, int | None]  # a Dim's literal min and max (None: not given as an int)


def _parts(
    doc: Document, call: ast.Call
) -> tuple[ast.expr, ast.expr, Bounds, str | None, ast.expr | None] | None:
    """`torch.export.export(model, (ids,), dynamic_shapes=...)`: the model, the token ids, the bounds
    of the Dim on their dim 1, the text of what their dim 0 was declared (None: a static batch), the
    `strict=` given; None for any other shape."""
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    model = call.args[0] if call.args else keywords.get("mod")
    examples = call.args[1] if len(call.args) > 1 else keywords.get("args")
    extra = call.args[2] if len(call.args) > 2 else keywords.get("kwargs")
    ids = _ids(examples, extra)
    if model is None or ids is None:
        return None  # the wrapper takes the token ids alone (and the cache position it makes)
    if set(keywords) - {"mod", "args", "kwargs", "dynamic_shapes", "strict"}:
        return None
    shapes = keywords.get("dynamic_shapes")
    spec = _ids_spec(shapes) if shapes is not None else {}
    seq, batch = spec.get(1), spec.get(0)
    declared = None if batch is None else _text(doc, batch)  # `None` / `Dim.STATIC`: a static batch
    return (
        model,
        ids,
        _bounds(doc.tree, seq, call) if seq is not None else (None, None),
        None if declared in (None, "None") or str(declared).endswith("STATIC") else declared,
        keywords.get("strict"),
    )


def _ids(examples: ast.expr | None, extra: ast.expr | None) -> ast.expr | None:
    """The token ids, when they are all the call feeds: `(ids,)`, or `()` with `{"input_ids": ids}`."""
    given = examples.elts if isinstance(examples, (ast.Tuple, ast.List)) else None
    named = extra if isinstance(extra, ast.Dict) else None
    if (given is None and examples is not None) or (extra is not None and named is None):
        return None
    keys = [k.value if isinstance(k, ast.Constant) else None for k in (named.keys if named else [])]
    if given and len(given) == 1 and not keys:
        return given[0]
    if not given and keys == ["input_ids"] and named is not None:
        return named.values[0]
    return None


def _ids_spec(shapes: ast.expr) -> dict[int, ast.expr]:
    """The ids' spec, dim -> what it was declared: `({1: seq},)`, `[{1: seq}]`, `{"input_ids": {1: seq}}`."""
    spec: ast.expr | None = None
    if isinstance(shapes, (ast.Tuple, ast.List)) and shapes.elts:
        spec = shapes.elts[0]
    elif isinstance(shapes, ast.Dict) and len(shapes.values) == 1:
        spec = shapes.values[0]
    if not isinstance(spec, ast.Dict):
        return {}
    return {
        key.value: value
        for key, value in zip(spec.keys, spec.values, strict=True)
        if isinstance(key, ast.Constant) and isinstance(key.value, int)
    }


def _bounds(tree: ast.Module, dim: ast.expr, before: ast.Call) -> Bounds:
    """The literal `min=` and `max=` of a `Dim(...)` given inline or bound to a name above the call
    (a max below 2 is none: no cache to hold a next token)."""
    made: ast.expr | None = dim
    if isinstance(dim, ast.Name):
        made = None
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Assign)
                and node.lineno < before.lineno
                and any(isinstance(t, ast.Name) and t.id == dim.id for t in node.targets)
            ):
                made = node.value  # the last binding above the call
    if not isinstance(made, ast.Call) or not ast.unparse(made.func).endswith("Dim"):
        return None, None
    given = {k.arg: k.value for k in made.keywords if k.arg in ("min", "max")}
    low, high = (
        v.value if isinstance(v := given.get(b), ast.Constant) and isinstance(v.value, int) else None
        for b in ("min", "max")
    )
    return low, high if high is not None and high >= 2 else None


def _statement(tree: ast.Module, call: ast.Call) -> ast.stmt | None:
    """The statement that is the call, assigns or returns it (`program = torch.export.export(...)`)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.Expr, ast.AnnAssign, ast.Return)) and node.value is call:
            return node
    return None


def _names(tree: ast.Module) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        a.asname or a.name
        for n in ast.walk(tree)
        if isinstance(n, (ast.Import, ast.ImportFrom))
        for a in n.names
    }


def _text(doc: Document, node: ast.expr) -> str:
    return ast.get_source_segment(doc.text, node) or ast.unparse(node)
