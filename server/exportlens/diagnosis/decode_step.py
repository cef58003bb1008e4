"""A prefill that exports with a cache whose program refuses the decode step (worker/job/decode_step.py).

One finding on the export call: which step (the decode step, one token at cache position L), what
refused it, and whether the model itself fails that step (then the library's line and the modeling
file's line are related: a static cache with no room for the next token) or only the program's
shapes do (a prefill exported at the prompt's length alone).
"""

from __future__ import annotations

import re

from ..codes import registered, url_for
from ..findings import Finding, Related
from ..worker.wire.records import DecodeStep, ExportSummary, Frame
from .context import DiagnosisContext
from .locate import Sources, export_call_place, library_frame, short_path, workspace_frames

DECODE_STEP_REFUSED = "decode-step-refused"
_MODELING = re.compile(r"/modeling_\w+\.py$")


def decode_findings(summary: ExportSummary, ctx: DiagnosisContext) -> list[Finding]:
    step = summary.get("decode_step")
    if not step:
        return []
    place = export_call_place(ctx, "call")
    path, where = (place.path, place.range) if place else (ctx.path, ctx.anchor)
    return [
        Finding(
            path=path,
            range=where,
            severity=registered(DECODE_STEP_REFUSED).severity,
            code=DECODE_STEP_REFUSED,
            message=_message(step, ctx),
            module=ctx.module,
            mode=ctx.mode,
            related=_related(step["frames"], ctx),
            url=url_for(DECODE_STEP_REFUSED),
            fix={"position": step["position"], "tokens": step["tokens"], "eager": step["eager"]},
        )
    ]


def _message(step: DecodeStep, ctx: DiagnosisContext) -> str:
    said = step["message"].strip().splitlines()[0] if step["message"].strip() else ""
    parts = [
        f"{ctx.label}: the prefill exports, but its program refuses the decode step (one token of "
        f"`{step['tokens']}` at cache position {step['position']}, as generation feeds it): "
        f"`{step['exc_type']}: {said[:300]}`."
    ]
    eager = step.get("eager_message") or ""
    if step["eager"] == "fails":
        first = eager.splitlines()[0][:300] if eager else ""
        also = f" (`{first}`)" if first and first != f"{step['exc_type']}: {said}" else ""
        frame = _innermost(step["frames"], ctx)
        where = f" in `{short_path(str(frame['path']))}` line {frame['line']}" if frame else ""
        parts.append(f"The model itself fails that step{also}{where}.")
        if any(w in text for text in (step["message"], eager) for w in ("out of bounds", "out of range")):
            parts.append(
                "A static cache holds `max_cache_len` positions: give it room for the prompt and every"
                " token generated after it (`max_cache_len` above the prompt's length)."
            )
    elif step["eager"] == "runs":
        parts.append(
            "The model takes that step when run eagerly; the exported program's input shapes do not."
        )
    if step["eager"] == "runs" or said.startswith("Guard failed"):
        parts.append(
            f"Fix: one Dim for the sequence on `{step['tokens']}` dim 1 and `cache_position` dim 0"
            f' (`torch.export.Dim("seq", max=max_cache_len - 1)`), so one program serves prefill and'
            f" decode, or export the decode step with one token as a program of its own."
        )
    return " ".join(parts)


def _innermost(frames: list[Frame], ctx: DiagnosisContext) -> Frame | None:
    return library_frame(frames, ctx)


def _related(frames: list[Frame], ctx: DiagnosisContext) -> list[Related]:
    """The library's line that refused, and the modeling file's line that called into it."""
    sources = Sources(ctx)
    found: list[Related] = []
    library = _innermost(frames, ctx)
    user = workspace_frames(frames, ctx)
    inside = frames[frames.index(user[-1]) + 1 :] if user else frames
    modeling = next((f for f in reversed(inside) if _MODELING.search(str(f.get("path", "")))), None)
    for frame, what in ((library, "refused here"), (modeling, "the modeling file's line at that step")):
        if frame is not None and frame.get("line"):
            at = sources.place(frame)
            if all((r.path, r.range) != (at.path, at.range) for r in found):
                found.append(Related(at.path, at.range, f"decode step: {what} (`{short_path(at.path)}`)"))
    return found
