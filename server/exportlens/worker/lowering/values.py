"""What the lowerings share about a program's values: whether it has any to run, and how close
two runs' values must be to count as the same (onnx.py, numeric.py, bisect.py, aoti.py)."""

from __future__ import annotations

from typing import Any

RTOL, ATOL = 1e-3, 1e-4


def no_values(program: Any, attempt: Any = None) -> bool:
    """Built as fake tensors on a device, or with meta weights: nothing to fold, run or serialise."""
    from torch._subclasses.fake_tensor import FakeTensor

    if getattr(attempt, "meta", False):
        return True
    values = [*program.state_dict.values(), *program.constants.values()]
    return any(isinstance(v, FakeTensor) or getattr(v, "is_meta", False) for v in values)
