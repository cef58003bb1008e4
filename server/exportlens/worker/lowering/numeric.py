"""The ONNX model in ONNX Runtime against eager PyTorch, on the example inputs and resized ones.

First the example inputs; then, for each dynamic dim, the same inputs at a second size inside its
range (values drawn from the example's, so token ids stay valid).  On a mismatch, the program's
intermediate values are exposed as extra ONNX outputs in one run and compared with the exported
program's, node by node in graph order: the first node that differs names the line.
"""

from __future__ import annotations

import importlib.util
import math
from typing import Any

from ..core.budget import Budget
from ..wire.records import LoweringFinding
from .nodes import target_finding
from .values import ATOL, RTOL, no_values

NO_VALUES = (
    "exported to ONNX; its numbers were not compared with eager: the model was built {why}, so there are no"
    " values to run. Set `exportlens.device` to `cpu` (`--device cpu`) or raise `metaAboveMb` to compare."
)
NO_RUNTIME = (
    "exported to ONNX; its numbers were not compared with eager: `onnxruntime` is not installed in the"
    " checked interpreter (`pip install onnxruntime`)."
)


def compare(
    onnx_program: Any, program: Any, attempt: Any, budget: Budget, checked: list[str]
) -> list[LoweringFinding]:
    """The findings of the comparison; `checked` gets the label of each input set compared."""
    if no_values(onnx_program.exported_program, attempt):
        why = "with meta weights" if getattr(attempt, "meta", False) else "as fake tensors on a device"
        return [_info(NO_VALUES.format(why=why))]
    if importlib.util.find_spec("onnxruntime") is None:
        return [_info(NO_RUNTIME)]
    import torch

    with budget.bounded(share=0.9), torch.no_grad():
        for label, args, kwargs in input_sets(program, attempt.args, attempt.kwargs or {}):
            want = [t for t in leaves_of(attempt.module(*args, **kwargs)) if isinstance(t, torch.Tensor)]
            try:
                got = list(onnx_program(*args, **kwargs))
            except Exception as exc:
                if label == "the example inputs":
                    raise
                message = (
                    f"ONNX Runtime refuses {label}, inside the dim's range, that torch.export accepts: the"
                    f" ONNX model did not keep the dim dynamic ({str(exc).splitlines()[0][:300]})."
                )
                return [target_finding("onnx-dynamic-shape", "error", message)]
            checked.append(label)
            error = _worst(want, got)
            if error is not None:
                return [_mismatch(label, error, onnx_program, program, args, kwargs)]
    return []


def _info(message: str) -> LoweringFinding:
    return target_finding("target-not-run", "information", message)


def leaves_of(value: Any) -> list[Any]:
    import torch.utils._pytree as pytree

    return list(pytree.tree_leaves(value))


def _worst(want: list[Any], got: list[Any]) -> tuple[float, float] | None:
    """(max abs, max rel) error where the outputs differ beyond tolerance; None when all agree."""
    import torch

    if len(want) != len(got):
        return (math.inf, math.inf)
    worst: tuple[float, float] | None = None
    for w, g in zip(want, got, strict=True):
        g = torch.as_tensor(g)
        if tuple(w.shape) != tuple(g.shape):
            return (math.inf, math.inf)
        w64, g64 = w.detach().double(), g.double()
        if torch.allclose(g64, w64, rtol=RTOL, atol=ATOL, equal_nan=True):
            continue
        diff = (g64 - w64).abs()
        rel = diff / w64.abs().clamp_min(1e-12)
        here = (float(diff.max()), float(rel.max()))
        worst = here if worst is None or here[0] > worst[0] else worst
    return worst


def input_sets(program: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """The example inputs, then per dynamic dim the inputs at a second size inside its range."""
    import torch
    import torch.utils._pytree as pytree

    sets: list[tuple[str, Any, Any]] = [("the example inputs", args, kwargs)]
    leaves, spec = pytree.tree_flatten((args, kwargs))
    tensors = [i for i, leaf in enumerate(leaves) if isinstance(leaf, torch.Tensor)]
    named = _placeholder_shapes(program)
    if len(named) != len(tensors):
        return sets
    shapes = [shape for _, shape in named]
    for symbol, size in _second_sizes(program, shapes, [leaves[i] for i in tensors]).items():
        changed = list(leaves)
        for slot, shape in zip(tensors, shapes, strict=True):
            new = [size if str(d) == symbol else int(leaves[slot].shape[k]) for k, d in enumerate(shape)]
            if new != list(leaves[slot].shape):
                changed[slot] = _resized(leaves[slot], new)
        resized_args, resized_kwargs = pytree.tree_unflatten(changed, spec)
        name, k = next((n, k) for n, shape in named for k, d in enumerate(shape) if str(d) == symbol)
        sets.append((f"size {size} of the dynamic dim {k} of `{name}`", resized_args, resized_kwargs))
    return sets


def _placeholder_shapes(program: Any) -> list[tuple[str, list[Any]]]:
    """The symbolic shapes of the program's user-input tensors, in order."""
    from torch.export.graph_signature import InputKind

    user = [s.arg.name for s in program.graph_signature.input_specs if s.kind == InputKind.USER_INPUT]
    by_name = {n.name: n for n in program.graph.nodes if n.op == "placeholder"}
    shapes = []
    for name in user:
        value = by_name[name].meta.get("val")
        if hasattr(value, "shape"):
            shapes.append((name, list(value.shape)))
    return shapes


def _second_sizes(program: Any, shapes: list[list[Any]], tensors: list[Any]) -> dict[str, int]:
    """symbol -> a size inside its range other than the example's; symbols only used plainly."""
    import torch

    sizes: dict[str, int] = {}
    ranges = {str(k): v for k, v in program.range_constraints.items()}
    plain = {
        str(d) for shape in shapes for d in shape if isinstance(d, torch.SymInt) and d.node.expr.is_Symbol
    }
    compound = {
        str(s)
        for shape in shapes
        for d in shape
        if isinstance(d, torch.SymInt) and not d.node.expr.is_Symbol
        for s in d.node.expr.free_symbols
    }
    for shape, tensor in zip(shapes, tensors, strict=True):
        for k, dim in enumerate(shape):
            symbol = str(dim)
            if symbol not in plain or symbol in compound or symbol in sizes or symbol not in ranges:
                continue
            low, high = _bound(ranges[symbol].lower, 2), _bound(ranges[symbol].upper, 2**31)
            now = int(tensor.shape[k])
            choice = next(
                (c for c in (now + 1, now - 1, now * 2) if max(low, 2) <= c <= high and c != now), None
            )
            if choice is not None:
                sizes[symbol] = choice
    return sizes


def _bound(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError, AttributeError):  # AttributeError: int_oo (no max)
        return default


def _resized(tensor: Any, shape: list[int]) -> Any:
    import torch

    flat = tensor.reshape(-1)
    picks = torch.randint(
        0, max(flat.numel(), 1), (math.prod(shape),), generator=torch.Generator().manual_seed(0)
    )
    return flat[picks].reshape(shape).clone() if flat.numel() else torch.zeros(shape, dtype=tensor.dtype)


def _mismatch(
    label: str, error: tuple[float, float], onnx_program: Any, program: Any, args: Any, kwargs: Any
) -> LoweringFinding:
    from .bisect import first_divergence

    node = None
    try:
        node = first_divergence(onnx_program, program, args, kwargs)
    except Exception:  # noqa: BLE001 - the bisection is best effort: the mismatch stands
        node = None
    where = f"; the values first diverge at `{node.name}` ({node.target})" if node is not None else ""
    message = (
        f"the ONNX model's outputs differ from eager on {label}: max abs error {error[0]:.3g}, max rel error"
        f" {error[1]:.3g} (tolerance rtol={RTOL:g}, atol={ATOL:g}){where}."
    )
    return target_finding("onnx-numeric-mismatch", "warning", message, node)
