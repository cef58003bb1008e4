"""An export that passed but whose program rejects sizes its Dims declare: a warning on the line.

The worker lists the shape conditions the exported program checks when it runs that fail for some
size inside a Dim's range (worker/narrowing.py: `(h//32)*(w//32) == 4` from a fixed position
table), with the size it found and the frames that made the condition. Each becomes
`dim-narrowed-at-runtime` on the innermost workspace frame (else the export call's
`dynamic_shapes`), the `dynamic_shapes` argument related.
"""

from __future__ import annotations

from ..findings import Finding, Related
from ..worker.records import ExportSummary
from .context import DiagnosisContext
from .locate import Sources, export_call_place, workspace_frames

NARROWED = "dim-narrowed-at-runtime"


def narrowed_findings(summary: ExportSummary, ctx: DiagnosisContext) -> list[Finding]:
    sources = Sources(ctx)
    declared = export_call_place(ctx, "dynamic_shapes")
    findings: list[Finding] = []
    said: set[tuple[str, int, int]] = set()
    for entry in summary.get("narrowed") or []:
        frames = workspace_frames(entry["frames"], ctx)
        place = sources.place(frames[-1]) if frames else declared
        if place is None:
            continue
        key = (place.path, place.range.start.line, place.range.start.character)
        if key in said:
            continue  # one line, one warning: a model repeats its conditions once per layer
        said.add(key)
        low, high = entry["min"], entry["max"]
        span = f"{low if low is not None else '?'}..{high if high is not None else '∞'}"
        related = []
        if declared is not None and (declared.path, declared.range) != (place.path, place.range):
            related.append(Related(declared.path, declared.range, "the Dims declared here"))
        findings.append(
            Finding(
                path=place.path,
                range=place.range,
                severity="warning",
                code=NARROWED,
                message=(
                    f"{ctx.label} exports, but its program checks `{entry['shown']}` when it runs, which "
                    f"the declared Dims do not promise: `{entry['dim']}` = {entry['rejected']}, inside its "
                    f"range {span}, is rejected (the example's {entry['example']} passes). This line made "
                    f"the condition. Fix: if the model needs it, say so in the spec (a static size, or a "
                    f"Dim whose every value it accepts); else derive what this line depends on from the "
                    f"input's size (a fixed position table interpolated to it)."
                ),
                module=ctx.module,
                mode=ctx.mode,
                related=related,
                fix={"expr": entry["expr"], "dim": entry["dim"], "rejected": entry["rejected"]},
            )
        )
    return findings
