"""A clean export's lowerings (worker/lowering/) -> findings on the user's lines (docs/targets.md).

Generic over targets: each `LoweringFinding` lands on the innermost workspace frame of its graph
node's stack trace, with the outer user frames and the library frame inside them as related
locations; without one, on the module (the export call, else the class).  A lowering that did not
run says why as one information finding; a lowering's own error goes to the log only.
"""

from __future__ import annotations

import logging
from typing import Any

from ..codes import CODES, url_for
from ..findings import Finding, Range, Related
from ..lowerings import label
from ..worker.wire.records import LoweringFinding, LoweringResult
from .context import DiagnosisContext
from .locate import Sources, library_frame, related_chain, short_path, workspace_frames

log = logging.getLogger("exportlens.diagnosis")

NOT_RUN = "target-not-run"


def lowering_findings(results: list[LoweringResult], ctx: DiagnosisContext) -> list[Finding]:
    sources = Sources(ctx)
    findings: list[Finding] = []
    for result in results:
        lowering = result["target"]
        if internal := result.get("internal"):
            log.warning("%s: the %s check failed in ExportLens: %s", ctx.module, lowering, internal)
        if skipped := result.get("skipped"):
            findings.append(_on_module(NOT_RUN, f"{label(lowering)}: not checked: {skipped}", ctx, lowering))
        for raw in result.get("findings") or []:
            finding = _one(raw, lowering, ctx, sources)
            if finding is not None:
                findings.append(finding)
    return findings


def _one(raw: LoweringFinding, lowering: str, ctx: DiagnosisContext, sources: Sources) -> Finding | None:
    code = str(raw.get("code", ""))
    if code not in CODES:  # the worker's code and this registry disagree: ExportLens's bug
        log.warning("%s: %s finding with an unregistered code %r: %s", ctx.module, lowering, code, raw)
        return None
    message = f"{label(lowering)}: {raw.get('message', '')}"
    frames = list(raw.get("frames") or [])
    user = workspace_frames(frames, ctx)
    if not user:
        return _on_module(code, message, ctx, lowering, raw)
    places = [sources.place(f) for f in user]
    culprit = places[-1]
    related = related_chain(places, culprit, ctx)
    library = library_frame(frames, ctx)  # inside the innermost user frame, if any
    if library is not None:
        where = sources.place(library)
        related.append(Related(where.path, where.range, f"inside `{short_path(where.path)}`"))
    return _finding(code, message, ctx, lowering, raw, (culprit.path, culprit.range), related)


def _on_module(
    code: str, message: str, ctx: DiagnosisContext, lowering: str, raw: LoweringFinding | None = None
) -> Finding:
    return _finding(code, message, ctx, lowering, raw or {}, (ctx.path, ctx.anchor), [])


def _finding(
    code: str,
    message: str,
    ctx: DiagnosisContext,
    lowering: str,
    raw: LoweringFinding,
    where: tuple[str, Range],
    related: list[Related],
) -> Finding:
    # Machine-readable data: the target (the JSON's word, as the setting's), the graph node and op.
    fix: dict[str, Any] = {"target": lowering}
    if node := raw.get("node"):
        fix["node"] = node
    if op := raw.get("op"):
        fix["op"] = op
    return Finding(
        path=where[0],
        range=where[1],
        severity=CODES[code].severity,
        code=code,
        message=message,
        module=ctx.module,
        mode=ctx.mode,
        related=related,
        url=url_for(code),
        fix=fix,
    )
