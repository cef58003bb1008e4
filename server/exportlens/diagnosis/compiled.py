"""A compile check's report (worker/job/compiled.py) -> findings on the user's lines (docs/compile.md).

Each graph break lands on the innermost workspace frame of dynamo's stack at the break, the outer
user frames and the library frame inside it as related locations, worded with torch's own type,
explanation and hints (read from the user's torch: its message, else its graph-break registry) and
linked to torch's page for its id. A recompile lands where the shape guard that pinned the size
was added, else on the module. Every message starts "torch.compile": a module both exported and
compiled gets both checks' findings, each saying whose it is.
"""

from __future__ import annotations

import re
from typing import Any

from ..codes import registered, url_for
from ..discovery import discovery_of
from ..findings import Finding, Range, Related
from ..worker.wire.compile_records import CompileReport, GraphBreak, Recompile
from ..worker.wire.records import Frame
from .compiled_values import value_text
from .context import DiagnosisContext
from .locate import Sources, library_frame, related_chain, short_path, workspace_frames

BREAK = "compile-graph-break"
FULLGRAPH = "compile-graph-break-fullgraph"
RECOMPILE = "compile-recompile"
_REASON_NAME = re.compile(r"tensor '([^']+)'")
# dynamo's context of a logging break (gb0291): "method: <Logger transformers.x (WARNING)>.warning_once"
_LOGGER_METHOD = re.compile(r"method: <Logger [^>]*>\.(\w+)")


def compile_findings(report: CompileReport, ctx: DiagnosisContext, fullgraph: bool) -> list[Finding]:
    sources = Sources(ctx)
    code = FULLGRAPH if fullgraph else BREAK
    findings = [_break(raw, code, ctx, sources) for raw in report.get("breaks") or []]
    findings += [_recompile(raw, ctx, sources) for raw in report.get("recompiles") or []]
    return findings


def _break(raw: GraphBreak, code: str, ctx: DiagnosisContext, sources: Sources) -> Finding:
    gb_type = str(raw.get("gb_type") or "graph break")
    message = f"torch.compile: graph break in {ctx.label}: {gb_type}."
    if explanation := raw.get("explanation"):
        message += f" {explanation}"
    else:
        message += f" {str(raw.get('message', '')).strip().splitlines()[0] if raw.get('message') else ''}"
    if code == FULLGRAPH:
        message += " With `fullgraph=True` torch.compile raises here."
    hints = [str(h) for h in raw.get("hints") or [] if "report an issue" not in str(h).lower()]
    if hints:
        message += " Hint: " + " ".join(hints)
    frames = list(raw.get("frames") or [])
    user = workspace_frames(frames, ctx)
    gb_id = raw.get("gb_id")
    fix = {"gb_type": gb_type, "gb_id": gb_id, "compile": True}
    library = library_frame(frames, ctx)
    if not user:
        return _library_break(raw, code, message.strip(), ctx, sources, library, fix)
    places = [sources.place(f) for f in user]
    related = related_chain(places, places[-1], ctx)
    if library is not None:
        where = sources.place(library)
        related.append(Related(where.path, where.range, f"inside `{short_path(where.path)}`"))
    where_ = (places[-1].path, places[-1].range)
    return _finding(code, message.strip(), ctx, where_, related, url_for(code, gb_id), fix)


def _library_break(
    raw: GraphBreak,
    code: str,
    message: str,
    ctx: DiagnosisContext,
    sources: Sources,
    library: Frame | None,
    fix: dict[str, Any],
) -> Finding:
    """A break with no workspace frame (all in an installed library, `transformers`): on the user's
    line torch names, the call of the compiled model whose inputs were used, the library line
    related; on the module when the inputs came from elsewhere."""
    url = url_for(code, raw.get("gb_id"))
    call = first_call_range(ctx)
    if call is None:
        return _finding(code, message, ctx, (ctx.path, ctx.anchor), [], url, fix)
    related = [Related(ctx.path, ctx.anchor, f"{ctx.label} is compiled here")]
    if library is not None:
        fix = {**fix, "library": [str(library.get("path", "")), int(library.get("line") or 0)]}
        if method := _LOGGER_METHOD.search(str(raw.get("message", ""))):
            fix["logger_method"] = method.group(1)  # the library's `logger.warning_once(...)`
        where = sources.place(library)
        related.append(Related(where.path, where.range, f"inside `{short_path(where.path)}`"))
    return _finding(code, message, ctx, (ctx.path, call), related, url, fix)


def first_call_range(ctx: DiagnosisContext) -> Range | None:
    """The span of the compiled model's first call in the checked file (discovery's `call`)."""
    subject = next((t for t in discovery_of(ctx.document).subjects if t.name == ctx.module), None)
    call = subject.inputs.get("call") if subject is not None else None
    if subject is None or subject.inputs.get("kind") != "compile-call" or not isinstance(call, list):
        return None
    line, col, end_line, end_col = call
    return ctx.document.source_text.span(line - 1, col, end_line - 1, end_col)


def _recompile(raw: Recompile, ctx: DiagnosisContext, sources: Sources) -> Finding:
    frames = [_resolved(f, ctx) for f in raw.get("frames") or []]
    user = workspace_frames(frames, ctx)
    dim = raw.get("dim")
    if dim == "state":
        message = _state_text(raw, ctx, bool(user))
    elif dim in _SWITCHES:
        message = _switch_text(raw, ctx)
    elif dim == "value":
        message = value_text(raw, ctx.label, bool(user), _limit_text(raw, "values"))
    else:
        message = _size_text(raw, ctx, bool(user))
    fix = {"compile": True, "reason": raw.get("reason"), "dim": raw.get("dim")}
    if not user:
        return _finding(RECOMPILE, message, ctx, (ctx.path, ctx.anchor), [], url_for(RECOMPILE), fix)
    place = sources.place(user[-1])
    related = (
        [Related(ctx.path, ctx.anchor, f"{ctx.label} is compiled here")] if place.path != ctx.path else []
    )
    return _finding(RECOMPILE, message, ctx, (place.path, place.range), related, url_for(RECOMPILE), fix)


def _size_text(raw: Recompile, ctx: DiagnosisContext, placed: bool) -> str:
    sizes = ", ".join(str(s) for s in raw.get("sizes") or [])
    message = (
        f"torch.compile: {ctx.label} recompiles for each new {_dim_name(raw.get('dim'))} (called with sizes "
        f"{sizes}): torch's guard failed: {raw.get('reason', '')}. "
    )
    if placed:
        message += "This line pins the size to a constant. "
    return message + _limit_text(raw, "sizes") + _remedies(raw)


def _limit_text(raw: Recompile, what: str) -> str:
    if not (limit := raw.get("limit")):
        return ""
    return (
        f"After {limit} {what} torch stops recompiling it (`torch._dynamo.config.recompile_limit`) and "
        "runs it eagerly, without a word. "
    )


def _state_text(raw: Recompile, ctx: DiagnosisContext, placed: bool) -> str:
    """A guard on Python state the forward changes itself: every call recompiles, same inputs or not."""
    message = (
        f"torch.compile: {ctx.label} recompiles on every call with the same inputs: its guard "
        f"`{raw.get('reason', '')}` fails on the next call, because the forward changes that value. "
    )
    if placed:
        message += "This line changes (or reads) it. "
    message += _limit_text(raw, "calls")
    tried = raw.get("tried") or {}
    proven = [f"`torch._dynamo.config.{knob} = True`" for knob, why in tried.items() if not why]
    if proven:
        return (
            message
            + "Proven to remove it (one recompile as the value turns dynamic, then none; outputs match "
            + f"eager): {proven[0]}."
        )
    failed = "; ".join(f"`{knob}` {why}" for knob, why in tried.items() if why)
    keep = (
        "Keep the changing value in a tensor (a registered buffer updated in place) or outside the forward."
    )
    return message + keep + (f" Checked: {failed}." if failed else "")


_SWITCHES = {
    "mode": (
        "the script switches it to {value} mode (`.{value}()`, line {line})",
        "This line reads the module's `training` flag (dropout and batch norm behave differently in "
        "train and eval mode), and torch compiled the other mode. ",
    ),
    "dtype": (
        "the script calls it in {value} (line {line})",
        "torch keeps one compiled version per input and parameter dtype. ",
    ),
    "autocast": (
        "the script calls it under autocast{dtype} (line {line})",
        "torch compiled it without autocast; autocast is global state every compiled version is guarded on. ",
    ),
    "grad": (
        "the script calls it with grad mode off (`torch.{value}`, line {line})",
        "torch compiled it with grad mode on; grad mode is global state every compiled version is guarded "
        "on. ",
    ),
}
_NO_SETTING = {
    "mode": "keep the compiled model in one mode and dtype, or compile one per mode",
    "grad": "an evaluation under it costs this one compile, once",
}


def _said(kind: str, switch: str) -> str:
    """ "eval@12" of a "mode" switch: "the script switches it to eval mode (`.eval()`, line 12)"."""
    value, _, line = switch.rpartition("@")
    return _SWITCHES[kind][0].format(
        value=value, line=line, dtype=f" ({value})" if value != "default" else ""
    )


def _switch_text(raw: Recompile, ctx: DiagnosisContext) -> str:
    """A switch the script makes between calls (worker/job/switch_recompiles.py): one compile more,
    kept; no setting removes it, so none is advised."""
    kind = str(raw.get("dim"))
    said = _said(kind, str(raw.get("switch", "")))
    before = [_said(*other.split(":", 1)) for other in raw.get("also") or []]
    if before:  # torch names one guard; the version it compiles is for all of them
        said += f", after {' and '.join(before)} (one compile for {'both' if len(before) == 1 else 'all'})"
    why = _SWITCHES[kind][1]
    limit = raw.get("limit")
    message = (
        f"torch.compile: {ctx.label} recompiles when {said}: torch's guard failed: "
        f"{raw.get('reason', '')}. {why}"
        "Each such state costs one compile, kept beside the first, so switching back does not recompile"
    )
    message += (
        f"; past {limit} versions (`torch._dynamo.config.recompile_limit`) torch runs it eagerly. "
        if limit
        else ". "
    )
    keep = _NO_SETTING.get(kind, "call the compiled model in one dtype (cast the inputs before it)")
    return message + f"No torch setting removes it: {keep}."


def _remedies(raw: Recompile) -> str:
    """Only what was proven on a fresh compile at the same calls (worker/job/recompiles.py) is
    advised; what torch refused or ignored is said as such, so nobody tries it."""
    dim = 1 if raw.get("dim") == "shape[1]" else 0
    name = _REASON_NAME.search(str(raw.get("reason", "")))
    arg = name.group(1) if name else "x"
    spelled = {
        "dynamic=True": "`torch.compile(..., dynamic=True)`",
        "maybe_mark_dynamic": f"`torch._dynamo.maybe_mark_dynamic({arg}, {dim})` before each call",
        "mark_dynamic": f"`torch._dynamo.mark_dynamic({arg}, {dim})` before each call",
    }
    tried = raw.get("tried")
    keep = "Keep the size symbolic on that line (a tensor op, not a Python int, `range()` or loop over it)."
    if tried is None:  # an older worker, or no time was left to try: nothing proven, nothing advised
        return keep
    proven = [spelled[r] for r, why in tried.items() if not why and r in spelled]
    if proven:
        return (
            f"Proven to remove it (no recompile at these sizes, outputs match eager): {' or '.join(proven)}."
        )
    failed = "; ".join(f"{spelled.get(r, r)} {why}" for r, why in tried.items() if r in spelled)
    return f"{keep} No torch setting removes it: checked, {failed}." if failed else keep


def _dim_name(dim: Any) -> str:
    return "sequence length" if dim == "shape[1]" else "batch size"


def _resolved(frame: Frame, ctx: DiagnosisContext) -> Frame:
    """torch shortens a guard's path (`mp/c31/net.py`): the checked file's, when it ends so."""
    path = str(frame.get("path", ""))
    if path and path != ctx.path and ctx.path.endswith(path):
        return {**frame, "path": ctx.path}
    return frame


def _finding(
    code: str,
    message: str,
    ctx: DiagnosisContext,
    where: tuple[str, Range],
    related: list[Related],
    url: str | None,
    fix: dict[str, Any],
) -> Finding:
    return Finding(
        path=where[0],
        range=where[1],
        severity=registered(code).severity,
        code=code,
        message=message,
        module=ctx.module,
        mode="compile",
        related=related,
        url=url,
        fix=fix,
    )
