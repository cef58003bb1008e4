"""`exportlens.quantize = "xnnpack"`: the executorch target's program quantized first (docs/targets.md).

torchao's pt2e flow on the exported program's module, in the child: `prepare_pt2e` with ExecuTorch's
`XNNPACKQuantizer` (`get_symmetric_quantization_config()`: int8, per-tensor weights), one calibration
call on the example inputs, `convert_pt2e`, and the converted module exported again with the same
inputs and dynamic shapes; executorch.py then lowers that program the way it lowers a float one.

The int8 `.pte` is compared with the FLOAT eager model, where the float tolerance (values.py) means
nothing: its error is a fact on every input set, and a warning only beyond `TOLERANCE` of the
output's range (max - min of the float output): int8 keeps 256 levels of it, so a sound program is
within a few levels (MobileNet-style blocks: about 1 %), and beyond 10 % the numbers are no longer the
model's.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

from ..wire.records import LoweringFinding
from .nodes import target_finding

TOLERANCE = 0.1  # max abs error / the float output's range, beyond which the int8 program is warned
STEPS = ("`prepare_pt2e`", "the calibration call", "`convert_pt2e`", "the converted module's `torch.export`")


class Refused(Exception):
    """A step of the pt2e flow raised: `step` names it, the cause is torchao's (or torch's) own;
    `program` has the graph the step ran (`.graph_module`), whose nodes keep the user's lines."""

    def __init__(self, step: str, cause: BaseException, program: Any) -> None:
        super().__init__(f"{step}: {cause}")
        self.step, self.program = step, program
        self.__cause__ = cause


def quantized(program: Any, attempt: Any) -> Any:
    """The program again, its module quantized for XNNPACK; Refused when a step of the flow raises."""
    import torch
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    args, kwargs = attempt.args, attempt.kwargs or {}
    quantizer = XNNPACKQuantizer()
    quantizer.set_global(get_symmetric_quantization_config())
    step, ran = STEPS[0], program
    try:
        prepared = prepare_pt2e(program.module(), quantizer)
        step, ran = STEPS[1], SimpleNamespace(graph_module=prepared)
        with torch.no_grad():
            prepared(*args, **kwargs)  # the observers see the example inputs' ranges
        step = STEPS[2]
        converted = convert_pt2e(prepared)
        step, ran = STEPS[3], SimpleNamespace(graph_module=converted)
        return torch.export.export(converted, args, kwargs or None, dynamic_shapes=attempt.dynamic_shapes)
    except Exception as exc:  # torchao's refusal: placed on the user's line by the caller
        raise Refused(step, exc, ran) from exc


class Judge:
    """The int8 `.pte`'s outputs against the float eager model's, on each input set run: the worst
    error into `facts` (`quantized_max_abs_error`, `quantized_max_rel_error`: relative to the output's
    range), and a warning when it is beyond `TOLERANCE`."""

    def __init__(self, facts: dict[str, Any]) -> None:
        self.facts = facts
        self.worst: tuple[float, float, str] | None = None

    def __call__(self, label: str, want: list[Any], got: list[Any]) -> LoweringFinding | None:
        here = _error(want, got)
        if self.worst is None or here[1] > self.worst[1]:
            self.worst = (*here, label)
        self.facts["quantized_max_abs_error"] = _rounded(self.worst[0])
        self.facts["quantized_max_rel_error"] = _rounded(self.worst[1])
        return None  # judged once every set ran: `finding`

    def finding(self) -> LoweringFinding | None:
        if self.worst is None or self.worst[1] <= TOLERANCE:
            return None
        absolute, relative, label = self.worst
        message = (
            f"the quantized (int8, XNNPACK) `.pte`'s outputs differ from the float model on {label}: max "
            f"abs error {absolute:.3g}, {relative:.0%} of the output's range (tolerance {TOLERANCE:.0%} for "
            "int8)."
            " Calibrate on inputs like the real ones, or keep the line that loses the precision in float."
        )
        return target_finding("executorch-quantized-error", "warning", message)


def _error(want: list[Any], got: list[Any]) -> tuple[float, float]:
    """(max abs error, max abs error / the float output's range), the worst over the outputs."""
    import torch

    if len(want) != len(got):
        return (math.inf, math.inf)
    worst = (0.0, 0.0)
    for w, g in zip(want, got, strict=True):
        g = torch.as_tensor(g)
        if tuple(w.shape) != tuple(g.shape):
            return (math.inf, math.inf)
        w64, g64 = w.detach().double(), g.double()
        if w64.numel() == 0:
            continue
        diff = float((g64 - w64).abs().max())
        spread = float(w64.max() - w64.min()) or max(float(w64.abs().max()), 1e-12)
        worst = max(worst, (diff, diff / spread), key=lambda e: e[1])
    return worst


def _rounded(value: float) -> float | str:
    return float(f"{value:.3g}") if math.isfinite(value) else "inf"  # JSON has no infinity
