"""An export on meta weights succeeds without ever computing a number: said as information.

Two ways there: above the meta-weights threshold ExportLens builds the module on the meta device
itself (worker/job/sizing.py), or the module's own code puts its weights there
(`torch.device("meta")`, `.to("meta")`). Either way torch traced the graph, its shapes, dtypes and
guards, and nothing that needs values ran: a clean export says less than it seems to.
"""

from __future__ import annotations

from ..codes import registered
from ..findings import Finding
from ..worker.wire.records import ExportSummary
from .context import DiagnosisContext

META_WEIGHTS = "meta-weights"
_CHECKED = (
    "torch traced its graph, shapes, dtypes and guards, but no weight held a value, so nothing that "
    "reads values was checked: no number was computed or compared with eager, and no branch, "
    "`.item()` or data-dependent op saw a real value"
)


def meta_weights_findings(summary: ExportSummary, ctx: DiagnosisContext) -> list[Finding]:
    weights = summary.get("weights")
    if not weights or not (weights["meta"] or weights.get("code_meta")):
        return []
    if weights["meta"]:
        size = weights["bytes"] / 2**20
        why = (
            f"its parameters and buffers ({size:,.0f} MB) are above the meta-weights threshold, so "
            "ExportLens built them on `torch.device('meta')` and never allocated them"
        )
        remedy = "raise the threshold (`metaAboveMb` / `--meta-above`, 0 = never)"
    else:
        why = "the module's code leaves its weights on the meta device"
        remedy = (
            "give it real weights before the export (`model.to_empty(device='cpu')` then "
            "`load_state_dict(...)`)"
        )
    return [
        Finding(
            path=ctx.path,
            range=ctx.anchor,
            severity=registered(META_WEIGHTS).severity,
            code=META_WEIGHTS,
            message=(
                f"{ctx.label} exported with meta weights: {why}; {_CHECKED}. It never ran on real "
                f"memory; to check it there, {remedy}."
            ),
            module=ctx.module,
            mode=ctx.shown_mode,
        )
    ]
