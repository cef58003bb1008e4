"""An export that passed but whose program rejects sizes its Dims declare: a warning on the line.

The worker lists the shape conditions the exported program checks when it runs that fail for some
size inside a Dim's range (worker/capture/narrowing.py: `(h//32)*(w//32) == 4` from a fixed position
table), with the size it found and the frames that made the condition. Each becomes
`dim-narrowed-at-runtime` on the innermost workspace frame (else the export call's
`dynamic_shapes`), the `dynamic_shapes` argument related.
"""

from __future__ import annotations

from ..findings import Finding, Related
from ..worker.wire.records import ExportSummary, Narrowing
from .context import DiagnosisContext
from .locate import Place, Sources, export_call_place, workspace_frames
from .sym_text import readable

NARROWED = "dim-narrowed-at-runtime"


def narrowed_findings(summary: ExportSummary, ctx: DiagnosisContext) -> list[Finding]:
    sources = Sources(ctx)
    declared = export_call_place(ctx, "dynamic_shapes")
    # One warning per line: a model repeats its conditions once per layer, and one line often makes
    # one per side (`h` and `w` of an interpolation's scale factor).
    by_line: dict[tuple[str, int], tuple[Place, list[Narrowing]]] = {}
    for entry in summary.get("narrowed") or []:
        frames = workspace_frames(entry["frames"], ctx)
        place = sources.place(frames[-1]) if frames else declared
        if place is not None:
            by_line.setdefault((place.path, place.range.start.line), (place, []))[1].append(entry)
    return [_finding(place, entries, declared, ctx) for place, entries in by_line.values()]


def _finding(
    place: Place, entries: list[Narrowing], declared: Place | None, ctx: DiagnosisContext
) -> Finding:
    shown = list(dict.fromkeys(f"`{readable(e['shown'])}`" for e in entries))
    rejected = list(dict.fromkeys(_rejected(e) for e in entries))
    related = []
    if declared is not None and (declared.path, declared.range) != (place.path, place.range):
        related.append(Related(declared.path, declared.range, "the Dims declared here"))
    first = entries[0]
    return Finding(
        path=place.path,
        range=place.range,
        severity="warning",
        code=NARROWED,
        message=(
            f"{ctx.label} exports, but its program checks {' and '.join(shown)} when it runs, which the "
            f"declared Dims do not promise: {'; '.join(rejected)}. This line made the "
            f"condition{'s' if len(shown) > 1 else ''}. Fix: if the model needs it, say so in the spec (a "
            f"static size, or a Dim whose every value it accepts); else derive what this line depends on "
            f"from the input's size (a fixed position table interpolated to it)."
        ),
        module=ctx.module,
        mode=ctx.mode,
        related=related,
        fix={"expr": first["expr"], "dim": first["dim"], "rejected": first["rejected"]},
    )


def _rejected(entry: Narrowing) -> str:
    low, high = entry["min"], entry["max"]
    span = f"{low if low is not None else '?'}..{high if high is not None else '∞'}"
    return (
        f"`{entry['dim']}` = {entry['rejected']}, inside its range {span}, is rejected "
        f"(the example's {entry['example']} passes)"
    )
