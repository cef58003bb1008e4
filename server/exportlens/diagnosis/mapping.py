"""Failure record -> findings: classify, locate the culprit, word the message.

`record["more"]` holds further failures of the same module (same shape); each
maps the same way and only distinct culprits are kept.
"""

from __future__ import annotations

from ..codes import registered, url_for
from ..findings import Finding, Range, Related
from ..textpos import utf16_len
from ..worker.wire.records import FailureRecord
from .context import DiagnosisContext
from .dim_advice import dim_advice
from .facts import Facts, user_raised
from .guards import guard_frames
from .kind import Kind
from .libraries import created_site, with_version
from .locate import (
    Place,
    Sources,
    export_call_place,
    is_workspace,
    library_frame,
    record_library_frame,
    related_chain,
    short_path,
    user_frames,
    workspace_frames,
)
from .outputs import return_place
from .rule import Failure
from .rules import kind_of, later_findings

_STRICT = "strict export (dynamo)"
_NON_STRICT = "non-strict export (fake tensors)"


def diagnose(record: FailureRecord, ctx: DiagnosisContext) -> list[Finding]:
    sources = Sources(ctx)
    findings: list[Finding] = []
    seen: set[tuple[str, str, int, int, object]] = set()
    each = [_one(one, ctx, sources) for one in [record, *(record.get("more") or [])]]
    mapped = later_findings(record, each)
    for finding in mapped:
        # Two refusals inside a library land on the same user line: its line tells them apart.
        library = (finding.fix or {}).get("library") or {}
        inside = (library.get("path"), library.get("line")) if isinstance(library, dict) else None
        key = (finding.code, finding.path, finding.range.start.line, finding.range.start.character, inside)
        if key not in seen:
            seen.add(key)
            findings.append(finding)
    if record.get("more_skipped") == "meta" and findings:
        findings[0].message += META_SKIPPED
    if record.get("more_skipped") == "device" and findings:
        placement = record.get("placement")
        devices = ", ".join(f"`{d}`" for d in placement["devices"]) if placement else ""
        findings[0].message += DEVICE_SKIPPED.format(devices=devices or "a GPU")
    for cut_short in (record.get("more_truncated"), record.get("guard_sites_budget")):
        if cut_short and findings:  # the worker's words: which pass ran out of time, what to raise
            findings[0].message += f" ({cut_short}.)"
    return [_inside(f, ctx) for f in findings]


META_SKIPPED = (
    " Failures after this one were not looked for: the model was checked with meta weights (it is"
    " over `metaAboveMb`), whose values are unknown, so nothing can be traced past this line."
    " Fix it and check again, or raise `metaAboveMb` (`--meta-above`) to search with real weights."
)


DEVICE_SKIPPED = (
    " Failures after this one were not looked for: the code targets {devices}, checked as fake"
    " tensors on that device (no values, no GPU touched), so nothing can be traced past this line."
    " Fix it and check again, or set `exportlens.device` to `cpu` (`--device cpu`) to search on the CPU."
)


def _inside(finding: Finding, ctx: DiagnosisContext) -> Finding:
    """A line the record names that this text does not have (the file changed): the anchor."""
    text = ctx.document.source_text

    def ok(r: Range) -> bool:
        lines = text.lines
        return all(
            0 <= p.line < len(lines) and 0 <= p.character <= utf16_len(lines[p.line])
            for p in (r.start, r.end)
        )

    if finding.path == ctx.path and not ok(finding.range):
        finding.range = ctx.anchor
    finding.related = [r for r in finding.related if r.path != ctx.path or ok(r.range)]
    return finding


def _one(record: FailureRecord, ctx: DiagnosisContext, sources: Sources) -> Finding:
    frames = user_frames(record, ctx)
    places = [sources.place(f) for f in frames]
    if places:  # `if (x < 0).any():` is reported by CPython as the whole statement
        places[-1] = sources.condition(places[-1])
    culprit = places[-1] if places else None
    library = record_library_frame(record, ctx)
    # The culprit's text: the user's line, else the library line that refused.
    text_at = culprit or (sources.condition(sources.place(library)) if library else None)
    facts = Facts(
        user_frames=frames,
        user_raised=user_raised(record, ctx),
        library_init=bool(library and library.get("name") == "__init__"),
        snippet=sources.snippet(text_at) if text_at else "",
        statement=sources.statement(text_at) if text_at else "",
        culprit_in_file=text_at is not None and text_at.path == ctx.path,
    )
    kind = kind_of(Failure(record, facts, ctx.document, ctx.module))
    if kind.where == "guard":
        site = guard_frames(record, kind)
        library = library_frame(site, ctx) if site else library
        chosen = workspace_frames(site, ctx)
        if chosen:
            places = [sources.place(f) for f in chosen]
            culprit = places[-1]
        else:
            # No user line added the guard: 0/1 examples specialise at the inputs themselves,
            # otherwise the Dims as declared are the best place.
            part = "args" if kind.code == "dim-example-too-small" else "dynamic_shapes"
            places, culprit = [], export_call_place(ctx, part)
        # What made the Dim a constant (a torch layer, a loop, a literal, a static partner), and
        # the advice in the user's names.
        guarded = sources.snippet(places[-1]) if places else ""
        kind = dim_advice(kind, guarded, sources.statement(places[-1]) if places else "", library, ctx)
    elif kind.where in ("args", "dynamic_shapes"):
        places, culprit = [], export_call_place(ctx, kind.where)
    elif kind.where == "return":
        places, culprit = [], return_place(ctx, str(kind.fix.get("class", "")), record)
        if (created := created_site(record)) is not None and not is_workspace(str(created["path"]), ctx):
            # a library built it (a model's default cache): its line, and which library at which version
            library, kind = created, with_version(kind, created)
    elif kind.where == "anchor":
        places, culprit = [], None
    if culprit is None:
        culprit = Place(ctx.path, ctx.anchor, "")
    # No fallback here: a failure no rule recognises is `export-error` by the rules' own choice,
    # so a code misspelt in a rule fails loudly instead of passing as `export-error`.
    entry = registered(kind.code)
    fix = {k: v for k, v in kind.fix.items() if v not in (None, "", [], {})}
    if culprit.range != ctx.anchor:
        fix.setdefault("expression", sources.snippet(culprit))
    related = related_chain(places, culprit, ctx)
    message = _message(entry.code, kind, record, ctx)
    if library is not None and not is_workspace(str(library["path"]), ctx) and entry.library:
        # The refusal happened inside a library the user calls: name the library line too.
        where = sources.place(library)
        line = where.range.start.line + 1
        shown = f"{short_path(where.path)}:{line}"
        fix.setdefault("library", {"path": where.path, "line": line, "name": where.name})
        what = f"`{kind.fix['class']}` is created here" if kind.where == "return" else f"`{where.name}`"
        related.append(Related(where.path, where.range, f"inside the library: {what} ({shown})"))
        message = _with_library(message, shown, where.name)
    return Finding(
        path=culprit.path,
        range=culprit.range,
        severity=entry.severity,
        code=entry.code,
        message=message,
        module=ctx.module,
        mode=ctx.shown_mode,
        related=related,
        url=url_for(entry.code, kind.fix.get("gb_id")),
        fix=fix or None,
    )


def _message(code: str, kind: Kind, record: FailureRecord, ctx: DiagnosisContext) -> str:
    entry = registered(code)
    detail = f" ({kind.detail})" if kind.detail else ""
    if ctx.compiled:  # a compile check: torch.compile's words, never an export's (docs/compile.md)
        why = entry.why.replace("export refusal", "compile refusal").replace("was exported", "was compiled")
        stopped = "" if not entry.refusal else f" torch.compile stopped on {ctx.label}."
        head = f"torch.compile: {why[:1].upper()}{why[1:]}{detail}.{stopped}"
    elif not entry.refusal:
        why = kind.fix.get("why") or entry.why  # the case's own words (memory.py)
        head = f"{why[:1].upper()}{why[1:]}{detail}."
    else:
        tracer = (
            _STRICT if (record.get("strict") if "strict" in record else ctx.mode == "strict") else _NON_STRICT
        )
        # The cause first (the Problems panel cuts long messages), then who refused what.
        cause = f"{entry.why[:1].upper()}{entry.why[1:]}{detail}."
        head = f"{cause} {tracer[:1].upper()}{tracer[1:]} refused {ctx.label}."
    if tokens := record.get("prefill_tokens"):  # decode_step.py: the decode step waits for it
        head += f" Refused at the prefill ({tokens} tokens with their `cache_position`)."
    if record.get("found_by") == "dynamo-graph-breaks":
        head += " (Found on a second pass that traced past the failures before it.)"
    elif record.get("found_by"):
        head += " (Found on a second pass that used the example inputs' real values.)"
    fixes = kind.fix.get("suggested") or []
    if code == "dim-example-too-small" and fixes:
        return f"{head} Fix: {entry.fix}."
    suggested = f" torch suggests: {'; '.join(fixes)}." if fixes else ""
    switch = f", or {entry.switch}" if entry.switch else ""  # merge.py drops it where both refuse
    return f"{head} Fix: {kind.fix.get('hint') or entry.fix}{switch}.{suggested}"


def _with_library(message: str, shown: str, name: str) -> str:
    """Say where in the library it happened, after the first sentence."""
    head, sep, rest = message.partition(" Fix: ")
    return f"{head} (In library code: `{name}` at {shown}.){sep}{rest}"
