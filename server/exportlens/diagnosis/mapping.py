"""Failure record -> findings: classify, locate the culprit, word the message.

`record["more"]` holds further failures of the same module (same shape); each
maps the same way and only distinct culprits are kept.
"""

from __future__ import annotations

import ast
from typing import Any

from ..findings import Finding
from .codes import CODES, url_for
from .context import DiagnosisContext
from .guards import guard_frames
from .kinds import Kind, classify
from .locate import (
    Place,
    Sources,
    export_call_place,
    is_workspace,
    related_chain,
    user_frames,
    workspace_frames,
)

_STRICT = "strict export (dynamo)"
_NON_STRICT = "non-strict export (fake tensors)"
_NOT_A_REFUSAL = {
    "user-exception",
    "import-error",
    "inputs-error",
    "module-init-error",
    "user-exit",
    "out-of-memory",
    "internal-error",
}


def diagnose(record: dict[str, Any], ctx: DiagnosisContext) -> list[Finding]:
    sources = Sources(ctx)
    findings: list[Finding] = []
    seen: set[tuple[str, str, int, int]] = set()
    for one in [record, *(record.get("more") or [])]:
        finding = _one(one, ctx, sources)
        key = (finding.code, finding.path, finding.range.start.line, finding.range.start.character)
        if key not in seen:
            seen.add(key)
            findings.append(finding)
    return findings


def _one(record: dict[str, Any], ctx: DiagnosisContext, sources: Sources) -> Finding:
    frames = user_frames(record, ctx)
    record = dict(record, user_frames=frames, user_raised=_user_raised(record, ctx))
    places = [sources.place(f) for f in frames]
    if places:  # `if (x < 0).any():` is reported by CPython as the whole statement
        places[-1] = sources.condition(places[-1])
    culprit = places[-1] if places else None
    kind = classify(
        record, sources.snippet(culprit) if culprit else "", sources.statement(culprit) if culprit else ""
    )
    if kind.where == "guard":
        chosen = workspace_frames(guard_frames(record, kind), ctx)
        if chosen:
            places = [sources.place(f) for f in chosen]
            culprit = places[-1]
            if kind.code == "dim-specialized" and not _has_int_literal(sources.snippet(culprit)):
                kind = Kind("dim-static-partner", kind.detail, kind.fix, kind.where)
        else:
            # No user line added the guard: 0/1 examples specialise at the inputs themselves,
            # otherwise the Dims as declared are the best place.
            part = "args" if kind.code == "dim-example-too-small" else "dynamic_shapes"
            places, culprit = [], export_call_place(ctx, part)
    elif kind.where in ("args", "dynamic_shapes"):
        places, culprit = [], export_call_place(ctx, kind.where)
    elif kind.where == "anchor":
        places, culprit = [], None
    if culprit is None:
        culprit = Place(ctx.path, ctx.anchor, "")
    entry = CODES.get(kind.code, CODES["export-error"])
    fix = {k: v for k, v in kind.fix.items() if v not in (None, "", [], {})}
    if culprit.range != ctx.anchor:
        fix.setdefault("expression", sources.snippet(culprit))
    return Finding(
        path=culprit.path,
        range=culprit.range,
        severity=entry.severity,
        code=entry.code,
        message=_message(entry.code, kind, record, ctx),
        module=ctx.module,
        mode=ctx.mode,
        related=related_chain(places, culprit, ctx),
        url=url_for(entry.code, kind.fix.get("gb_id")),
        fix=fix or None,
    )


def _message(code: str, kind: Kind, record: dict[str, Any], ctx: DiagnosisContext) -> str:
    entry = CODES[code]
    detail = f" ({kind.detail})" if kind.detail else ""
    if code in _NOT_A_REFUSAL:
        head = f"{entry.why[:1].upper()}{entry.why[1:]}{detail}."
    else:
        tracer = (
            _STRICT if (record.get("strict") if "strict" in record else ctx.mode == "strict") else _NON_STRICT
        )
        head = f"{tracer[:1].upper()}{tracer[1:]} refused `{ctx.module}`: {entry.why}{detail}."
    if record.get("found_by"):
        head += " (Found on a second pass that used the example inputs' real values.)"
    fixes = kind.fix.get("suggested") or []
    if code == "dim-example-too-small" and fixes:
        return f"{head} Fix: {entry.fix}."
    suggested = f" torch suggests: {'; '.join(fixes)}." if fixes else ""
    return f"{head} Fix: {entry.fix}.{suggested}"


def _user_raised(record: dict[str, Any], ctx: DiagnosisContext) -> bool:
    """The exception was raised by workspace code itself (its innermost frame), not by torch."""
    mro = record.get("exc_mro") or []
    if any(name.startswith("Torch") or name in ("Unsupported", "UserError") for name in mro):
        return False
    frames = record.get("frames") or []
    return bool(frames) and is_workspace(str(frames[-1].get("path", "")), ctx)


def _has_int_literal(snippet: str) -> bool:
    """A literal size in the culprit (`reshape(8, 16)`, `== 8`) vs a static partner (`x + y`)."""
    try:
        tree = ast.parse(snippet.rstrip(":"), mode="eval")
    except SyntaxError:
        return any(ch.isdigit() for ch in snippet)
    return any(isinstance(n, ast.Constant) and type(n.value) is int for n in ast.walk(tree))
