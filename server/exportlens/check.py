"""Check one document: its modules exported in the worker, each outcome diagnosed.

Shared by the CLI and the language server; knows nothing about either.  Building the jobs is
job_building.py's, what can be said without exporting static_findings.py's.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

from .covered import Coverage, exported_as, exported_class, held_back, tree_of, unresolved, with_exporters
from .diagnosis import DiagnosisContext, diagnose
from .diagnosis.baked.confirm import baked_findings
from .diagnosis.targets import target_findings
from .discovery import REAL_INPUTS, Target
from .document import Document
from .engine import Engine, JobOutcome
from .findings import FileResult, Finding, InputsKind, ModuleResult, Status
from .guessed import soften_guessed
from .job_building import MODES, CheckOptions, make_job, tracers
from .merge import merge_tracers
from .outcomes import outcome_findings
from .parts import part_findings, reached_export, recorded_parts, with_parents
from .static_findings import anchor_range, encoding_finding, read_findings

__all__ = ["MODES", "CheckOptions", "EarlyReport", "check_document", "check_file", "tracers"]

# A module's first failure, before its others are searched for: (its result, its findings).
EarlyReport = Callable[[ModuleResult, list[Finding]], None]


async def check_file(
    engine: Engine,
    path: str,
    source: str | None = None,
    options: CheckOptions | None = None,
    only: set[str] | None = None,
    early: EarlyReport | None = None,
    others: Sequence[Document] = (),
) -> FileResult:
    """`check_document` of `path` with the buffer text `source`, else the file's text on disk."""
    path = str(Path(path).resolve())
    if source is None:
        try:
            doc = Document.from_file(path)
        except (SyntaxError, UnicodeDecodeError) as exc:  # undecodable: a finding, not a crash
            result = FileResult(path)
            result.diagnostics.append(encoding_finding(path, exc))
            return result
    else:
        doc = Document(path, source)
    return await check_document(engine, doc, options, only, early, others)


async def check_document(
    engine: Engine,
    doc: Document,
    options: CheckOptions | None = None,
    only: set[str] | None = None,
    early: EarlyReport | None = None,
    others: Sequence[Document] = (),
) -> FileResult:
    """Check every module of `doc`, or those in `only`.

    `early` hears of each failed module's first failure before its other failures are found
    (only when one tracer runs: merging two tracers needs both outcomes). The classes of
    `others` (workspace files `doc` imports) that a module of `doc` is built from are checked
    with what they receive there too (parts.py), their findings on their own file."""
    options = options or CheckOptions()
    path = doc.path
    result = FileResult(path)
    found = doc.discovery
    if found.error is not None:
        result.diagnostics += read_findings(doc)
        return result
    targets = [t for t in found.targets if only is None or t.name in only]
    targets = with_parents(targets, found.targets)  # a part's inputs are recorded by its parent
    targets = with_exporters(targets, found.targets)  # they tell which classes they cover
    jobs = [
        (target, strict)
        for target in targets
        if target.inputs_kind != "none" and target.part_of is None
        for strict in tracers(options.mode)
    ]
    held = held_back(jobs)  # guessed inputs wait for the real ones (covered.py)
    elsewhere = Coverage(path, [], options.covered)  # what other files' exports cover: no job
    jobs = [job for job in jobs if job not in held and not elsewhere.covers(job[0])]

    def context(target: Target, outcome: JobOutcome) -> DiagnosisContext:
        return DiagnosisContext(
            document=doc,
            module=target.name,
            exported=exported_class(target, outcome),
            exported_as=exported_as(doc, target),
            mode="strict" if outcome.strict else "non-strict",
            anchor=anchor_range(doc.source_text, target),
            roots=options.roots,
            # a part fed what it received is the module its parent was built as: the parent's kind
            inputs=str(target.inputs.get("parent", target.inputs)["kind"]),
        )

    def relay(target: Target) -> Callable[[JobOutcome], None] | None:
        if early is None or len(tracers(options.mode)) > 1:
            return None
        report = early
        return lambda outcome: report(
            _module_result(target, outcome, outcome.status, options.mode),
            soften_guessed(outcome_diagnostics(outcome, context(target, outcome)), target),
        )

    def recorded(parent: Target) -> list[str]:
        """The files whose part classes `parent`'s export records: none, no recording pass."""
        if parent.inputs_kind not in REAL_INPUTS:
            return []
        # the file's classes that are, or may be, its parts (what it holds tells: covered.py)
        own = [path] if any(t.part_of == parent.name or unresolved(t) for t in targets) else []
        return own + [other.path for other in others if other.path != path]

    outcomes = list(
        await asyncio.gather(
            *(
                engine.run(make_job(doc, target, strict, options, recorded(target)), relay(target))
                for target, strict in jobs
            )
        )
    )
    first = [(target, outcome) for (target, _), outcome in zip(jobs, outcomes, strict=True)]
    coverage = Coverage(path, first, options.covered)
    covered = {t.name for t in targets if coverage.covers(t)}
    targets = coverage.marked(targets)  # a class an export holds is its part
    held = [(target, strict) for target, strict in held if not coverage.covers(target)]
    # Then each part its parent recorded inputs for, alone with them (parts.py).
    parts = recorded_parts(targets, first, path, others)
    part_jobs = [(p.target, strict) for p in parts.values() for strict in tracers(options.mode)]
    for (target, _), done in zip(jobs, outcomes, strict=True):
        if (part_jobs or held) and (report := relay(target)) is not None:
            report(done)  # the parents' results are final: shown while their parts are checked
    # A part's lowering is its parent's: the parent's program already holds the part's nodes.
    alone = dataclasses.replace(options, targets=("export",))
    outcomes += await asyncio.gather(
        *(engine.run(make_job(doc, target, strict, options), relay(target)) for target, strict in held),
        *(engine.run(make_job(doc, target, strict, alone)) for target, strict in part_jobs),
    )
    jobs += held + part_jobs
    names = {t.name for t in targets} - covered
    result.diagnostics += [f for f in read_findings(doc) if f.module in names]
    checked = {target.name for target, _ in jobs}
    for target in targets:
        unrecorded = target.part_of is not None and target.name not in parts
        if unrecorded or (target.name not in checked and unresolved(target)):
            # a part its parent did not record inputs for is checked by its parent's export only;
            # a class an export covers, by that export
            result.modules.append(_module_result(target, None, "skipped", options.mode))
    by_target: dict[str, list[tuple[JobOutcome, DiagnosisContext]]] = {}
    for (target, _), outcome in zip(jobs, outcomes, strict=True):
        status = outcome.status if target.name not in parts or reached_export(outcome) else "skipped"
        result.modules.append(_module_result(target, outcome, status, options.mode))
        by_target.setdefault(target.name, []).append((outcome, context(target, outcome)))
    by_name = {target.name: target for target in targets} | {n: p.target for n, p in parts.items()}
    said: dict[str, list[Finding]] = {}
    for name, runs in by_target.items():  # parents first: a part's findings are weighed against theirs
        if name in parts:
            runs = [(outcome, ctx) for outcome, ctx in runs if reached_export(outcome)]
        findings = [finding for outcome, ctx in runs for finding in outcome_diagnostics(outcome, ctx)]
        if len(runs) > 1:
            findings = merge_tracers(findings, {ctx.mode: o.status == "exported" for o, ctx in runs})
        if name in parts:
            parent = parts[name].parent
            exported = {ctx.mode for o, ctx in by_target.get(parent, []) if o.status == "exported"}
            findings = part_findings(findings, parts[name], said.get(parent, []), exported)
            if parts[name].file != path:  # another file's class: what lands on that file is its own
                findings = [f for f in findings if f.path == parts[name].file]
        said[name] = soften_guessed(findings, by_name[name])
        result.diagnostics.extend(said[name])
    result.diagnostics = once_per_file(result.diagnostics)
    result.modules.sort(key=lambda m: m.line)
    result.diagnostics.sort(key=lambda d: (d.range.start.line, d.range.start.character, d.code))
    return result


def outcome_diagnostics(outcome: JobOutcome, ctx: DiagnosisContext) -> list[Finding]:
    if outcome.status == "failed" and outcome.failure is not None:
        return diagnose(outcome.failure, ctx)
    if outcome.status == "exported" and outcome.summary is not None:
        lowered = target_findings(cast("list[dict[str, Any]]", outcome.raw.get("targets") or []), ctx)
        return baked_findings(outcome.summary, ctx) + lowered
    return outcome_findings(outcome, ctx)


def _module_result(target: Target, outcome: JobOutcome | None, status: str, mode: str | None) -> ModuleResult:
    line = getattr(target.node, "lineno", 1) - 1
    tracer = mode or "non-strict"
    if outcome is not None and mode in (None, "both"):
        tracer = "strict" if outcome.strict else "non-strict"
    summary = outcome.summary if outcome else None
    return ModuleResult(
        name=target.name,
        line=line,
        inputs=cast(InputsKind, target.inputs_kind),
        mode=tracer,
        status=cast(Status, status),
        seconds=outcome.seconds if outcome else 0.0,
        ops=summary.get("ops") if summary else None,
        graph=summary,
        timings=outcome.timings if outcome else {},
        targets=target_facts(outcome),
        tree=tree_of(outcome),
    )


def target_facts(outcome: JobOutcome | None) -> list[dict[str, Any]]:
    """Each lowering's verdict without its findings (those are diagnostics): hover, JSON, the cache."""
    kept = ("target", "ok", "seconds", "facts", "skipped")
    raw = cast("list[dict[str, Any]]", outcome.raw.get("targets") or []) if outcome is not None else []
    return [{k: r[k] for k in kept if k in r} for r in raw]


def once_per_file(findings: list[Finding]) -> list[Finding]:
    """A file that fails to import fails for every module: say so once."""
    seen: set[tuple[str, int, int]] = set()
    kept = []
    for finding in findings:
        if finding.code == "import-error":
            key = (finding.path, finding.range.start.line, finding.range.start.character)
            if key in seen:
                continue
            seen.add(key)
        kept.append(finding)
    return kept


def default_roots() -> list[str]:
    return [os.getcwd()]
