"""What the lowerings share about a program's values: whether it has any to run, and how close
two runs' values must be to count as the same (onnx.py, numeric.py, bisect.py, aoti.py)."""

from __future__ import annotations

import importlib.util
from typing import Any

from ..wire.records import LoweringResult
from .nodes import target_finding

RTOL, ATOL = 1e-3, 1e-4


def cannot_run(
    target: str, needs: tuple[str, ...], install: str, no_values_text: str, program: Any, attempt: Any
) -> LoweringResult | None:
    """A device target's answer when it cannot run here: a package it needs is missing (skipped with
    the install hint) or the model has no values to put on a device (information); else None."""
    if any(importlib.util.find_spec(name) is None for name in needs):
        return {"target": target, "ok": False, "skipped": install}
    if no_values(program, attempt):
        why = "with meta weights" if getattr(attempt, "meta", False) else "as fake tensors on a device"
        findings = [target_finding("target-not-run", "information", no_values_text.format(why=why))]
        return {"target": target, "ok": False, "findings": findings}
    return None


def no_values(program: Any, attempt: Any = None) -> bool:
    """Built as fake tensors on a device, or with meta weights: nothing to fold, run or serialise."""
    from torch._subclasses.fake_tensor import FakeTensor

    if getattr(attempt, "meta", False):
        return True
    values = [*program.state_dict.values(), *program.constants.values()]
    return any(isinstance(v, FakeTensor) or getattr(v, "is_meta", False) for v in values)
