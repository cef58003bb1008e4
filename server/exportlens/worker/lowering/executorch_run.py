"""The `.pte` in ExecuTorch's runtime, in the child (executorch.py): loaded, then run on the example
inputs and, for each dynamic dim, at a second size inside its range (numeric.py's input sets),
against eager PyTorch with the onnx check's tolerance (values.py); a quantized program's `.pte` is
judged by quantize.py's `Judge` instead (its own tolerance, against the float model).

The method gets the flat leaves of `(args, kwargs)` (tensors and the ints torch.export kept), the
exported program's user inputs in order; a method that fails to load without a missing kernel
named (executorch_plan.py) is an error on the module with the runtime's text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.budget import Budget, OutOfBudget
from ..wire.records import LoweringFinding
from .nodes import target_finding
from .values import ATOL, RTOL


def load_refusal(said: str) -> LoweringFinding:
    message = (
        f"the `.pte` builds but the runtime does not load its `forward` method ({said}). Check the "
        "operators and backends the runtime build has (`Runtime.get().operator_registry`, "
        "`backend_registry`)."
    )
    return target_finding("executorch-load-error", "error", message)


# (the input set's label, eager's outputs, the `.pte`'s) -> a finding, or None: the outputs pass
Judge = Callable[[str, list[Any], list[Any]], LoweringFinding | None]


def run(
    method: Any,
    program: Any,
    attempt: Any,
    checked: list[str],
    edge: Any,
    budget: Budget,
    judge: Judge | None = None,
) -> list[LoweringFinding]:
    """The first input set the method refuses or computes differently from eager, as a finding; a
    difference on the line of the delegated op that makes it, when leaving that op out proves it.
    `judge`: a quantized program's own measure of its outputs instead of the float tolerance."""
    import torch

    from .numeric import _worst, input_sets, leaves_of

    with torch.no_grad():
        for label, args, kwargs in input_sets(program, attempt.args, attempt.kwargs or {}):
            want = [t for t in leaves_of(attempt.module(*args, **kwargs)) if isinstance(t, torch.Tensor)]
            inputs = leaves_of((args, kwargs))  # the program's user inputs, ints among them
            try:
                got = [t for t in method.execute(inputs) if isinstance(t, torch.Tensor)]
            except Exception as exc:  # noqa: BLE001 - the runtime's refusal of these inputs
                return [_run_refusal(label, exc)]
            checked.append(label)
            if judge is not None:
                if found := judge(label, want, got):
                    return [found]
                continue
            error = _worst(want, got)
            if error is not None:
                message = (
                    f"the `.pte`'s outputs differ from eager on {label}: max abs error {error[0]:.3g}, max "
                    f"rel error {error[1]:.3g} (tolerance rtol={RTOL:g}, atol={ATOL:g})."
                )
                finding = target_finding("executorch-numeric-mismatch", "warning", message)
                return [_placed(finding, program, edge, inputs, want, budget)]
    return []


def _placed(
    finding: LoweringFinding, program: Any, edge: Any, inputs: list[Any], want: list[Any], budget: Budget
) -> LoweringFinding:
    from .executorch_blame import blame, blamed_finding

    try:
        found = blame(program, edge, inputs, want, budget)
    except (Exception, OutOfBudget) as exc:  # noqa: BLE001 - no proof: the finding stays on the module
        found = f"re-lowering failed ({type(exc).__name__}: {str(exc)[:300]})"
    if isinstance(found, str):
        return {
            **finding,
            "message": f"{finding['message']} Which op makes the difference is not proven: {found}.",
        }
    return blamed_finding(finding, *found)


def _run_refusal(label: str, exc: BaseException) -> LoweringFinding:
    said = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ''}"
    dynamic = label != "the example inputs"
    message = (
        f"the runtime refuses {label}"
        + (", inside the dim's range, that torch.export accepts" if dynamic else "")
        + f" ({said})."
        + (" Give the dim a `max` in `dynamic_shapes` the memory plan can keep." if dynamic else "")
    )
    return target_finding("executorch-run-error", "error", message)
