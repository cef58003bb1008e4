"""Whether two results are the same (a fix's proof, verify.py; a recompile remedy's, recompiles.py):
tensors by shape, dtype and closeness, containers by their items, registered pytrees by leaves."""

from __future__ import annotations

from typing import Any

import torch
from torch.utils import _pytree as pytree


def same_values(a: Any, b: Any) -> bool:
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        return bool(torch.allclose(a, b, atol=1e-5, rtol=1e-4, equal_nan=True))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_values(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_values(a[k], b[k]) for k in a)
    leaves_a, spec_a = pytree.tree_flatten(a)
    if (
        len(leaves_a) != 1 or leaves_a[0] is not a
    ):  # a registered container (a dataclass the fix registered): its leaves
        leaves_b, spec_b = pytree.tree_flatten(b)
        return spec_a == spec_b and all(same_values(x, y) for x, y in zip(leaves_a, leaves_b, strict=True))
    return bool(a == b)
