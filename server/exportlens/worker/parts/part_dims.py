"""Which dims of what a part receives follow its parent's Dims: told by a second eager pass.

A size alone cannot tell: with a batch of 2 and 2 heads, or a sequence of 16 and a head size of
16, a static dim is as large as a dynamic one. So the parent runs again (same hooks, the first
call per class) on its own inputs narrowed along each dynamic dim, Dim number k by k + 1 (a view
of the real values: `x.narrow(dim, 0, size - k - 1)`): a part's dim that shrank by exactly that
much, from that Dim's example size, is that Dim; every other dim is static. When the narrowed
inputs do not run (a size that must be a multiple, a derived Dim), nothing is confirmed and the
part is checked with static shapes: fewer Dims checked, never a Dim it does not have.

A dim that changed by a multiple of a Dim's change (`2 * seq`, `seq + 1` for a prepended token)
may be derived from it, or not (`batch * seq`, `batch + seq`, `seq ** 2` change that way too):
a third pass narrows that Dim alone by twice as much, and only a dim that moved on the line
through both points (k * Dim + c, others fixed) is derived; the part is checked with torch's
derived Dim (`2 * seq + 1`, torch >= 2.10), every other candidate static.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Literal

import torch

from ..core.attempt import Attempt
from ..wire.records import PartDim, PartInputs


@dataclass
class ParentDims:
    by_name: dict[str, PartDim] = field(default_factory=dict)  # in declaration order
    sites: list[tuple[torch.Tensor, int, str]] = field(default_factory=list)  # input, dim, Dim name

    def by_size(self) -> dict[int, PartDim]:
        """Example size -> the first declared Dim of that size: names before the second pass."""
        found: dict[int, PartDim] = {}
        for dim in self.by_name.values():
            found.setdefault(dim["size"], dim)
        return found

    def deltas(self) -> dict[str, int]:
        """How much each Dim is narrowed by; one that would go below 2 is not probed."""
        sizes = {name: dim["size"] for name, dim in self.by_name.items()}
        return {name: k + 1 for k, name in enumerate(self.by_name) if sizes[name] - (k + 1) >= 2}


def parent_dims(attempt: Attempt) -> ParentDims:
    """The parent's dynamic Dims (plain, `Dim.AUTO`, `Dim.DYNAMIC`) and where its inputs have them."""
    found = ParentDims()
    spec = attempt.dynamic_shapes
    if spec is None:
        return found
    try:
        bound = inspect.signature(attempt.module.forward).bind(*attempt.args, **(attempt.kwargs or {}))
    except (TypeError, ValueError):
        return found
    if isinstance(spec, dict):
        pairs = [(bound.arguments.get(k), s) for k, s in spec.items()]
    else:
        pairs = list(zip(bound.arguments.values(), spec, strict=False))
    for value, entry in pairs:
        _walk(value, entry, found)
    return found


def _walk(value: Any, spec: Any, found: ParentDims) -> None:
    if spec is None:
        return
    if isinstance(value, torch.Tensor):
        per_dim = spec.items() if isinstance(spec, dict) else enumerate(spec)
        for index, dim in per_dim:
            if isinstance(index, int) and 0 <= index < value.dim() and int(value.shape[index]) > 1:
                described = _dim(dim, int(value.shape[index]), len(found.by_name))
                if described is not None:
                    found.by_name.setdefault(described["name"], described)
                    found.sites.append((value, index, described["name"]))
    elif isinstance(value, (tuple, list)) and isinstance(spec, (tuple, list)):
        for v, s in zip(value, spec, strict=False):
            _walk(v, s, found)
    elif isinstance(value, dict) and isinstance(spec, dict):
        for key, v in value.items():
            _walk(v, spec.get(key), found)


def _dim(dim: Any, size: int, count: int) -> PartDim | None:
    """A plain Dim, or Dim.AUTO / Dim.DYNAMIC; a derived Dim (`2 * d`) or a static size is None."""
    hint = getattr(getattr(dim, "type", None), "name", None)
    if hint in ("AUTO", "DYNAMIC"):
        kind: Literal["auto", "dynamic"] = "auto" if hint == "AUTO" else "dynamic"
        return {"name": f"{kind}{count}", "hint": kind, "size": size, "min": None, "max": None}
    name = getattr(dim, "__name__", None)
    if not isinstance(name, str) or hasattr(dim, "root") or not hasattr(dim, "min"):
        return None
    return {"name": name, "hint": "dim", "size": size, "min": _bound(dim.min), "max": _bound(dim.max)}


def _bound(value: Any) -> int | None:
    return value if isinstance(value, int) and abs(value) < 2**62 else None


def narrowed(attempt: Attempt, dims: ParentDims, deltas: dict[str, int]) -> tuple[Any, Any]:
    """The parent's (args, kwargs), each dynamic dim narrowed by its Dim's delta."""
    from torch.utils._pytree import tree_map

    cuts: dict[int, list[tuple[int, int]]] = {}
    for tensor, index, name in dims.sites:
        if name in deltas:
            cuts.setdefault(id(tensor), []).append((index, int(tensor.shape[index]) - deltas[name]))

    def cut(value: Any) -> Any:
        if not isinstance(value, torch.Tensor) or id(value) not in cuts:
            return value
        for index, size in cuts[id(value)]:
            value = value.narrow(index, 0, size)
        return value

    args, kwargs = tree_map(cut, (tuple(attempt.args), dict(attempt.kwargs or {})))
    return args, kwargs


def confirm(record: PartInputs, second: PartInputs | None, dims: ParentDims, deltas: dict[str, int]) -> None:
    """Name in `record` only the dims that shrank with a Dim in the `second` pass; the rest static."""
    used: dict[str, PartDim] = {}
    sizes = {name: dim["size"] for name, dim in dims.by_name.items()}
    follows = (sizes, deltas, dims.by_name, used)
    their_args: list[Any] = second["args"] if second else []
    their_kwargs: dict[str, Any] = second["kwargs"] if second else {}
    for i, node in enumerate(record["args"]):
        _node(node, their_args[i] if i < len(their_args) else None, follows)
    for key, node in record["kwargs"].items():
        _node(node, their_kwargs.get(key), follows)
    record["dims"] = used


def _node(a: dict[str, Any], b: dict[str, Any] | None, follows: Any) -> None:
    sizes, deltas, by_name, used = follows
    if "tensor" in a:
        shape = a["tensor"]["shape"]
        other = (b or {}).get("tensor", {}).get("shape")
        names: list[str | None] = [None] * len(shape)
        derived: list[list[Any]] = []
        if other is not None and len(other) == len(shape):
            for i, (s, s2) in enumerate(zip(shape, other, strict=True)):
                names[i] = next((n for n, d in deltas.items() if sizes[n] == s and s - s2 == d), None)
                if names[i]:
                    used[names[i]] = by_name[names[i]]
                else:
                    derived += _derived(i, s, s - s2, deltas, by_name)
        a["tensor"]["dims"] = names
        if derived:
            a["tensor"]["derived"] = derived  # settled by `settle`, then removed
    elif "dict" in a:
        theirs = dict((b or {}).get("dict") or [])
        for key, node in a["dict"]:
            _node(node, theirs.get(key), follows)
    elif "tuple" in a or "list" in a:
        kind = "tuple" if "tuple" in a else "list"
        items: list[Any] = (b or {}).get(kind) or []
        for i, node in enumerate(a[kind]):
            _node(node, items[i] if i < len(items) else None, follows)


def _derived(
    index: int, size: int, change: int, deltas: dict[str, int], by_name: dict[str, PartDim]
) -> list[list[Any]]:
    """[index, root, k, c] for each plain Dim whose narrowing `change` is a multiple of: k * root + c."""
    found = []
    for name, delta in deltas.items():
        if by_name[name]["hint"] == "dim" and change > 0 and change % delta == 0:
            k = change // delta
            c = size - k * by_name[name]["size"]
            if (k, c) != (1, 0) and size >= 2:
                found.append([index, name, k, c])
    return found


def derived_roots(records: list[PartInputs]) -> list[str]:
    """The Dims some dim of `records` may be derived from: each needs a pass of its own."""
    roots: list[str] = []
    for record in records:
        for tensor in _tensors(record):
            roots += (root for _, root, _, _ in tensor.get("derived", []) if root not in roots)
    return roots


def settle(record: PartInputs, third: PartInputs | None, root: str, step: int, dims: ParentDims) -> None:
    """Keep the candidates derived from `root` that moved by k * `step` when `root` alone was
    narrowed by `step` (`third`: that pass's record, None when it did not run): those are derived."""
    theirs = _tensors(third) if third else []
    mine = _tensors(record)
    for n, tensor in enumerate(mine):
        other = (
            theirs[n]["shape"]
            if n < len(theirs) and len(theirs[n]["shape"]) == len(tensor["shape"])
            else None
        )
        left = []
        for index, name, k, c in tensor.get("derived", []):
            if name != root:
                left.append([index, name, k, c])
                continue
            size = tensor["shape"][index]
            if other is not None and tensor["dims"][index] is None and size - other[index] == k * step:
                name = tensor["dims"][index] = _name(root, k, c)
                base = dims.by_name[root]
                low, high = (None if v is None else k * v + c for v in (base["min"], base["max"]))
                record["dims"][name] = {
                    "name": name,
                    "hint": "derived",
                    "size": size,
                    "min": low,
                    "max": high,
                    "root": root,
                    "k": k,
                    "c": c,
                }
                record["dims"][root] = base
        tensor["derived"] = left
        if not left:
            del tensor["derived"]


def drop_derived(record: PartInputs) -> None:
    """Candidates no pass confirmed: static."""
    for tensor in _tensors(record):
        tensor.pop("derived", None)


def _name(root: str, k: int, c: int) -> str:
    scaled = root if k == 1 else f"{k}*{root}"
    return scaled if c == 0 else f"{scaled}{c:+d}"


def _tensors(record: PartInputs) -> list[dict[str, Any]]:
    """The record's tensor descriptions, in a fixed order (args, then kwargs by key, depth first)."""
    found: list[dict[str, Any]] = []

    def walk(node: dict[str, Any]) -> None:
        if "tensor" in node:
            found.append(node["tensor"])
        elif "dict" in node:
            for _, value in node["dict"]:
                walk(value)
        for kind in ("tuple", "list"):
            for value in node.get(kind, []):
                walk(value)

    for node in record["args"]:
        walk(node)
    for key in sorted(record["kwargs"]):
        walk(record["kwargs"][key])
    return found
