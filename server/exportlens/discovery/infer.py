"""Guess example inputs from a module's first layer and `forward`'s signature.

Only when the guess is sound: `__init__` needs no arguments, `forward` takes
exactly one required tensor, and the first layer applied to it has literal
sizes (or sizes from `__init__` defaults / module-level constants).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from ..syntax import dotted, literal_int

Builder = Callable[[list[int | None], dict[str, ast.expr]], str | None]


def _linear(a: list[int | None], kw: dict[str, ast.expr]) -> str | None:
    return f"torch.randn(2, {a[0]})" if a and a[0] else None


def _conv(rank: int) -> Builder:
    spatial = {1: "32", 2: "32, 32", 3: "8, 16, 16"}[rank]
    return lambda a, kw: f"torch.randn(2, {a[0]}, {spatial})" if a and a[0] else None


def _embedding(a: list[int | None], kw: dict[str, ast.expr]) -> str | None:
    return f"torch.randint(0, {a[0]}, (2, 8))" if a and a[0] else None


def _sequence(a: list[int | None], kw: dict[str, ast.expr]) -> str | None:
    batch_first = isinstance(kw.get("batch_first"), ast.Constant) and kw["batch_first"].value is True  # type: ignore[attr-defined]
    if not a or not a[0]:
        return None
    return f"torch.randn(2, 8, {a[0]})" if batch_first else f"torch.randn(8, 2, {a[0]})"


def _norm_features(a: list[int | None], kw: dict[str, ast.expr]) -> str | None:
    return f"torch.randn(2, 8, {a[0]})" if a and a[0] else None


LAYERS: dict[str, Builder] = {
    "Linear": _linear,
    "Bilinear": lambda a, kw: None,
    "Conv1d": _conv(1),
    "Conv2d": _conv(2),
    "Conv3d": _conv(3),
    "Embedding": _embedding,
    "LSTM": _sequence,
    "GRU": _sequence,
    "RNN": _sequence,
    "TransformerEncoderLayer": _sequence,
    "MultiheadAttention": _sequence,
    "ConvTranspose1d": _conv(1),
    "ConvTranspose2d": _conv(2),
    "ConvTranspose3d": _conv(3),
    "InstanceNorm1d": _conv(1),
    "InstanceNorm2d": _conv(2),
    "InstanceNorm3d": _conv(3),
    "GroupNorm": lambda a, kw: _conv(2)(a[1:], kw) if len(a) > 1 else None,
    "RMSNorm": _norm_features,
    "LayerNorm": _norm_features,
    "BatchNorm1d": _linear,
    "BatchNorm2d": _conv(2),
    "BatchNorm3d": _conv(3),
}


def infer_inputs(cls: ast.ClassDef, constants: dict[str, int]) -> str | None:
    """An expression for the example args tuple, e.g. `(torch.randn(2, 16),)`."""
    init = _method(cls, "__init__")
    forward = _method(cls, "forward")
    if forward is None:
        return None
    params = forward.args.args[1:]
    required = len(params) - len(forward.args.defaults)
    if required != 1 or (forward.args.kwonlyargs and None in forward.args.kw_defaults):
        return None
    names = dict(constants)
    if init is not None:
        if len(init.args.args) - 1 > len(init.args.defaults) or None in init.args.kw_defaults:
            return None  # needs constructor arguments
        names.update(_param_defaults(init))
    layers = _layers(init)
    attr = _first_layer_applied(forward, params[0].arg, layers)
    layer = layers.get(attr) if attr else next(iter(layers.values()), None)
    if layer is None:
        return None
    kind = (dotted(layer.func) or "").rpartition(".")[2]
    build = LAYERS.get(kind)
    if build is None:
        return None
    args = [literal_int(a, names) for a in layer.args]
    keywords = {k.arg: k.value for k in layer.keywords if k.arg}
    first_keyword = {
        "Linear": "in_features",
        "Embedding": "num_embeddings",
        "LayerNorm": "normalized_shape",
        "RMSNorm": "normalized_shape",
        "MultiheadAttention": "embed_dim",
    }
    if not args and kind in first_keyword and first_keyword[kind] in keywords:
        args = [literal_int(keywords[first_keyword[kind]], names)]
    if not args and kind.startswith(("Conv", "BatchNorm")):
        key = "in_channels" if kind.startswith("Conv") else "num_features"
        args = [literal_int(keywords.get(key), names)]
    expr = build(args, keywords)
    return f"({expr},)" if expr else None


def _method(cls: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    return next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == name), None)


def _param_defaults(func: ast.FunctionDef) -> dict[str, int]:
    params = func.args.args[len(func.args.args) - len(func.args.defaults) :]
    values = {p.arg: literal_int(d, {}) for p, d in zip(params, func.args.defaults, strict=True)}
    return {k: v for k, v in values.items() if v is not None}


def _layers(init: ast.FunctionDef | None) -> dict[str, ast.Call]:
    """`self.name = nn.Layer(...)` in order; a Sequential counts as its first layer."""
    layers: dict[str, ast.Call] = {}
    for node in ast.walk(init) if init else []:
        if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Call):
            continue
        target = node.targets[0]
        if not (isinstance(target, ast.Attribute) and dotted(target.value) == "self"):
            continue
        call = node.value
        while (
            (dotted(call.func) or "").endswith("Sequential")
            and call.args
            and isinstance(call.args[0], ast.Call)
        ):
            call = call.args[0]
        layers.setdefault(target.attr, call)
    return layers


def _first_layer_applied(forward: ast.FunctionDef, param: str, layers: dict[str, ast.Call]) -> str | None:
    """The layer `self.layer(param)` applied first in source order, before `param` is reassigned.

    `x = relu(self.bn(self.conv(x))); ...; return self.head(x)`: `conv`, not `head`.
    """
    calls = [
        node
        for node in ast.walk(forward)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and dotted(node.func.value) == "self"
        and node.func.attr in layers
        and node.args
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id == param
    ]
    if not calls:
        return None
    first = min(calls, key=lambda n: (n.lineno, n.col_offset))
    for stmt in ast.walk(forward):
        targets: list[ast.expr] = []
        if isinstance(stmt, ast.Assign):
            targets = stmt.targets
        elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
            targets = [stmt.target]
        else:
            continue
        rebinds = any(isinstance(t, ast.Name) and t.id == param for t in targets)
        if rebinds and (stmt.end_lineno or stmt.lineno) < first.lineno:
            return None  # the layer sees a transformed input: its sizes say nothing about the argument
    func = first.func
    return func.attr if isinstance(func, ast.Attribute) else None
