"""The "Save as ONNX" command's file: `torch.onnx.export(program, dynamo=True)` written to a path.

The child calls it instead of `torch.export.save` when the job's `save_to` ends in `.onnx`
(child.save_program); the ONNX target's own check (onnx.py) writes nothing.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from .onnx import INSTALL, NEEDS


def save_onnx(program: Any, target: str) -> str | None:
    """None once written; else why not (the install hint when onnx / onnxscript are missing)."""
    if any(importlib.util.find_spec(name) is None for name in NEEDS):
        return f"not saved: {INSTALL}"
    import torch

    try:
        onnx_program = torch.onnx.export(program, dynamo=True, verbose=False, report=False)
        if onnx_program is None:  # only without dynamo=True
            return "not saved: torch.onnx.export returned no model"
        onnx_program.save(target)
    except Exception as exc:  # noqa: BLE001 - reported to the user as is
        return f"not saved: torch.onnx.export refused the program: {type(exc).__name__}: {exc}"[:1000]
    return None
