"""Why a Dim broke and what to do, in the user's own names and numbers, once its line is known.

torch says which Dim broke and what it became; the guard's line (guards.py) says what made it:
a torch layer (nn.LSTM's decomposition loops over the time steps), a Python loop over the
tensor, a literal size or a fixed-size tensor in the line, or else a partner input with a
static size.  The hint names the Dim, the value and the line, never a generic example.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from ..discovery import discovery_of
from ..worker.wire.records import Frame
from .context import DiagnosisContext
from .guard_value import sizes_passing
from .kind import Kind, quoted_names
from .locate import short_path

# Calls that turn a size into a plain Python int: the Dim becomes the example's value.
_TO_INT = {"len", "int", "range", "float"}
# Iterating over a tensor unrolls its first dim: the loop runs a fixed number of times.
_ITERATE = {"zip", "enumerate", "iter", "list", "tuple", "reversed", "map"}
# torch's recurrent layers: exported by a decomposition that loops over the time steps.
_RNN = re.compile(r"/torch/nn/modules/rnn\.py$")
# torch's fix that makes a Dim static: `w = 56`.
_STATIC_FIX = re.compile(r"^(?P<dim>\w+) = (?P<value>-?\d+)$")
# An input's size as torch names it: `L['x'].size()[2]`.
_SOURCE = re.compile(r"L\['(?P<input>\w+)'\].*\.size\(\)\[(?P<dim>\d+)\]$")


def dim_advice(
    kind: Kind, snippet: str, statement: str, library: Frame | None, ctx: DiagnosisContext
) -> Kind:
    """The same failure with its real cause (a static partner only when nothing else made it)
    and a hint naming the Dim, its value and the line."""
    dim, value = kind.fix.get("dim"), kind.fix.get("value")
    line = f"`{snippet}`" if snippet else "the code"
    if kind.fix.get("solver_guard"):
        return _unsolved(kind, line, ctx)
    layer = library if library and "/torch/nn/" in str(library.get("path", "")) else None
    if kind.code == "dim-range-narrowed" and dim and not kind.fix.get("hint"):
        ranges = [f for f in kind.fix.get("suggested") or [] if f.startswith(f"{dim} = ")]
        if ranges or not kind.fix.get("sizes_left"):
            torch_says = f", as torch suggests (`{ranges[0]}`)" if ranges else ""
            hint = (
                f"narrow `{dim}` to the sizes {line} accepts{torch_says}, "
                f"or change that line so every size of `{dim}` passes"
            )
            return _with(kind, hint=hint)
        return _with(kind, hint=_left_hint(str(dim), kind.fix["sizes_left"], line))
    if kind.code == "dims-must-be-equal" and dim and kind.fix.get("other"):
        return _with(kind, hint=f"use one Dim for both (`{kind.fix['other']} = {dim}`)")
    if kind.code != "dim-specialized" or not dim or not isinstance(value, int):
        return kind
    # Each dynamic alternative first, static last: the user declared the Dim dynamic on purpose.
    lowest = kind.fix.get("min_size")
    bound = f' (from {lowest} up: `{dim} = Dim("{dim}", min={lowest})`)' if isinstance(lowest, int) else ""
    names = _pinned_with(kind, str(dim), value)
    places = "their places" if len(names) > 1 else "its place"
    static = f"make {quoted_names(names)} static ({value} in {places} in `dynamic_shapes`)"
    if layer is not None and _RNN.search(str(layer["path"])):
        detail = (
            f"{kind.detail}: torch exports its recurrent layers (nn.LSTM / nn.GRU / nn.RNN) by a"
            f" decomposition that loops over the time steps ({short_path(str(layer['path']))})"
        )
        hint = (
            "for any length, export one time step (a cell: `nn.LSTMCell`, `nn.GRUCell`, `nn.RNNCell`, or"
            f" the layer on a length-1 sequence) and loop outside the exported program; otherwise {static}"
        )
        return Kind(kind.code, detail, dict(kind.fix, hint=hint, cause="torch-layer"), kind.where)
    if layer is not None:
        hint = f"{static}: the torch layer called in {line} needs that size fixed"
        return Kind(kind.code, kind.detail, dict(kind.fix, hint=hint, cause="torch-layer"), kind.where)
    if _loops(snippet, statement):
        detail = f"{kind.detail}: the Python loop `{statement.rstrip(':')}` runs once per element"
        hint = f"replace the loop over `{dim}` by tensor operations on the whole dim; otherwise {static}"
        return Kind(kind.code, detail, dict(kind.fix, hint=hint, cause="loop"), kind.where)
    if converted := _as_int(snippet):
        size, fix = converted
        detail = f"{kind.detail}: `{size}` makes the size a plain Python int, the example's {value}"
        hint = f"write `{fix}` instead of `{size}`, which keeps `{dim}` symbolic{bound}; otherwise {static}"
        return Kind(kind.code, detail, dict(kind.fix, hint=hint, cause="int"), kind.where)
    if statement.startswith(("if ", "elif ", "while ")):
        test = statement.split(" ", 1)[1].rstrip(":").strip()
        detail = f"{kind.detail}: for the example's size, `{test}` takes a branch that holds only for {value}"
        hint = (
            f"export with an example size for which `{test}` is false (the general branch), or make the test"
            f" not depend on `{dim}`{bound}; otherwise {static}"
        )
        return Kind(kind.code, detail, dict(kind.fix, hint=hint, cause="branch"), kind.where)
    if owned := _module_operand(snippet):
        # The fixed size is the module's own tensor: no Dim can be given to it.
        hint = (
            f"make `{owned}` in {line} follow the input's size (slice or resize it to `{dim}`), or take"
            f" the size from the input{bound}; otherwise {static}"
        )
        return Kind(kind.code, kind.detail, dict(kind.fix, hint=hint, cause="module-tensor"), kind.where)
    if snippet and not _fixes_size(snippet):
        hint = f"give the other operand of {line} the same Dim `{dim}` in `dynamic_shapes`, or {static}"
        return Kind("dim-static-partner", kind.detail, dict(kind.fix, hint=hint), kind.where)
    hint = (
        f"change {line} so its size follows the input{bound}; otherwise, if `{dim}` is always {value},"
        f" {static}"
    )
    return _with(kind, hint=hint)


def _pinned_with(kind: Kind, dim: str, value: int) -> list[str]:
    """`dim` and the other Dims torch's fixes pin to the same value (`h = 56; w = 56`)."""
    fixes = [*(kind.fix.get("suggested") or []), *(kind.fix.get("torch_suggested") or [])]
    others = [m["dim"] for m in map(_STATIC_FIX.match, fixes) if m and int(m["value"]) == value]
    return list(dict.fromkeys([dim, *others]))


def _as_int(snippet: str) -> tuple[str, str] | None:
    """(`len(x)`, `x.shape[0]`) or (`int(x.shape[1])`, `x.shape[1]`): a size made a Python int."""
    for node in _nodes(snippet):
        if isinstance(node, ast.Call) and len(node.args) == 1 and _called(node) in ("len", "int"):
            arg = node.args[0]
            if _called(node) == "len" and isinstance(arg, ast.Name | ast.Attribute):
                return ast.unparse(node), f"{ast.unparse(arg)}.shape[0]"
            if _called(node) == "int" and _is_size(arg):
                return ast.unparse(node), ast.unparse(arg)
    return None


def _is_size(node: ast.expr) -> bool:
    """`x.shape[k]`, `x.size(k)`, `x.size()[k]`."""
    if isinstance(node, ast.Subscript):
        base = node.value
        return (isinstance(base, ast.Attribute) and base.attr == "shape") or (
            isinstance(base, ast.Call) and isinstance(base.func, ast.Attribute) and base.func.attr == "size"
        )
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size"


def _module_operand(snippet: str) -> str:
    """`self.pos_embed` when an operand of the operation in `snippet` is the module's own."""
    for node in _nodes(snippet):
        if isinstance(node, ast.BinOp | ast.Compare):
            pair = [node.left, node.right] if isinstance(node, ast.BinOp) else [node.left, *node.comparators]
            for operand in pair:
                target = operand.func if isinstance(operand, ast.Call) else operand
                if _is_self_attr(target):
                    return ast.unparse(target)
    return ""


def _left_hint(dim: str, left: dict[str, Any], line: str) -> str:
    """torch suggested no fix: the range its own guard leaves (constraints.sizes_left), and the
    other ways out, each with its reason."""
    low, high = left["declared"]
    bounds = [f"min={left['min']}"] if left["min"] != low else []
    bounds += [f"max={left['max']}"] if left["max"] != high else []
    narrowed = f'`{dim} = Dim("{dim}", {", ".join(bounds)})`'
    return (
        f"torch suggests no fix; of the sizes `{dim}` was given (`{left['range']}`), {line} accepts "
        f"{left['min']} to {left['max']}: declare {narrowed}, or use `Dim.AUTO` to let torch choose the "
        f"range, or make `{dim}` static if it never varies; otherwise change that line so every size "
        "passes"
    )


def _unsolved(kind: Kind, line: str, ctx: DiagnosisContext) -> Kind:
    """torch's solver gave up on the guard: which sizes pass it, of which Dims, and what to do."""
    sizes = sizes_passing(str(kind.fix.get("site_guard") or ""))
    dims = list(
        dict.fromkeys(_declared(str(source), ctx) for source in sorted(kind.fix.get("sources") or []))
    )
    which = " and ".join(dims) or "the dynamic dims"
    if sizes and sizes == list(range(sizes[0], sizes[-1] + 1)) and sizes[-1] < 2048:
        equal = " (all equal)" if len(dims) > 1 else ""
        passing = f"only sizes {sizes[0]} to {sizes[-1]} of {which}{equal} pass {line}"
    else:
        passing = f"{line} accepts only some sizes of {which}"
    detail = f"{passing}; torch's Dim solver cannot state that as a Dim (it raised NotImplementedError)"
    their = "their Dims" if len(dims) > 1 else "its Dim"
    hint = f"make {which} static (drop {their} from `dynamic_shapes`) or change {line} not to depend on them"
    return Kind(kind.code, detail, dict(kind.fix, hint=hint), kind.where)


def _declared(source: str, ctx: DiagnosisContext) -> str:
    """`h` (dim 2 of `x`) for `L['x'].size()[2]`: the Dim the export call declares at that index."""
    m = _SOURCE.match(source)
    if not m:
        return f"`{source}`"
    where = f"dim {m['dim']} of `{m['input']}`"
    names = {name for name in _dims_at(ctx, int(m["dim"])) if name}
    return f"`{names.pop()}` ({where})" if len(names) == 1 else where


def _dims_at(ctx: DiagnosisContext, index: int) -> list[str]:
    """Names of the Dims the module's export call puts at `index` of any input's `dynamic_shapes`."""
    subject = next((t for t in discovery_of(ctx.document).subjects if t.name == ctx.module), None)
    call = subject.call if subject is not None else None
    shapes = next((k.value for k in call.keywords if k.arg == "dynamic_shapes"), None) if call else None
    names = []
    for node in ast.walk(shapes) if shapes is not None else []:
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == index and value is not None:
                    names.append(_dim_name(value))
    return names


def _dim_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
        return str(node.args[0].value)
    return ""


def _with(kind: Kind, **fix: Any) -> Kind:
    return Kind(kind.code, kind.detail, dict(kind.fix, **fix), kind.where)


def _loops(snippet: str, statement: str) -> bool:
    """A `for` over the tensor (`for h, d in zip(hidden, done):`), or a call that iterates it."""
    if statement.startswith(("for ", "async for ")):
        return True
    return any(isinstance(n, ast.Call) and _called(n) in _ITERATE for n in _nodes(snippet))


def _fixes_size(snippet: str) -> bool:
    """A literal size (`reshape(8, 16)`, `== 8`), a size made a Python int (`len(x)`), or a
    comparison with another tensor's fixed shape (`x.shape[1:] == self.pos.shape`)."""
    nodes = _nodes(snippet)
    if not nodes:
        return any(ch.isdigit() for ch in snippet) or any(f"{name}(" in snippet for name in _TO_INT)
    return any(
        (isinstance(n, ast.Constant) and type(n.value) is int)
        or (isinstance(n, ast.Call) and _called(n) in _TO_INT)
        or (isinstance(n, ast.Attribute) and n.attr == "shape" and _is_self_attr(n.value))
        for n in nodes
    )


def _is_self_attr(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _called(call: ast.Call) -> str:
    return call.func.id if isinstance(call.func, ast.Name) else ""


def _nodes(snippet: str) -> list[ast.AST]:
    text = snippet.strip().rstrip(":")
    for candidate in (text, re.sub(r"^(assert|if|elif|while|return|for .+? in)\s+", "", text)):
        try:
            return list(ast.walk(ast.parse(candidate, mode="eval")))
        except SyntaxError:
            continue
    try:
        return list(ast.walk(ast.parse(text + ("\n    pass" if text.startswith("for ") else ""))))
    except SyntaxError:
        return []
