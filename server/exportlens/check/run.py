"""Check one document: its modules exported in the worker, each outcome diagnosed.

Shared by the CLI and the language server; knows nothing about either.  Building the jobs is
jobs.py's, what the outcomes say passes.py's (its passes, in order), what can be said without
exporting static_findings.py's.  The modules another workspace file checks are placed.py's.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

from ..diagnosis import DiagnosisContext
from ..discovery import REAL_INPUTS, Subject, discovery_of
from ..document import Document
from ..engine import Engine, JobOutcome
from ..findings import FileResult, Finding, InputsKind, ModuleResult, Status
from ..reading import read_document
from ..worker.wire.records import LoweringResult
from .compiled import with_compile_checks
from .covered import Coverage, exported_as, exported_class, held_back, tree_of, unresolved, with_exporters
from .guessed import soften_guessed
from .jobs import MODES, CheckOptions, make_job, tracers
from .part_records import part_records
from .parts import reached_export, recorded_parts, with_parents
from .passes import ModuleRuns, diagnosed, file_findings, module_findings
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
            doc = read_document(path)
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
    (each tracer's, with two: their merge, at the end, says which tracer refused). The classes of
    `others` (workspace files `doc` imports) that a module of `doc` is built from are checked
    with what they receive there too (parts.py), their findings on their own file."""
    options = options or CheckOptions()
    path = doc.path
    result = FileResult(path)
    found = discovery_of(doc)
    if found.error is not None:
        result.diagnostics += read_findings(doc)
        return result
    subjects = [t for t in found.subjects if only is None or t.name in only]
    subjects = with_parents(subjects, found.subjects)  # a part's inputs are recorded by its parent
    subjects = with_exporters(subjects, found.subjects)  # they tell which classes they cover
    subjects = with_compile_checks(subjects, options.compile)  # exportlens.compile (compiled.py)
    jobs = [
        (subject, strict)
        for subject in subjects
        if subject.inputs_kind != "none" and subject.part_of is None
        for strict in tracers(options.mode)
    ]
    held = held_back(jobs)  # guessed inputs wait for the real ones (covered.py)
    jobs = [job for job in jobs if job not in held]

    def context(subject: Subject, outcome: JobOutcome) -> DiagnosisContext:
        return DiagnosisContext(
            document=doc,
            module=subject.name,
            exported=exported_class(subject, outcome),
            exported_as=exported_as(doc, subject),
            mode="strict" if outcome.strict else "non-strict",
            compiled=subject.compile is not None,
            anchor=anchor_range(doc.source_text, subject),
            roots=options.roots,
            # a part fed what it received is the module its parent was built as: the parent's kind
            inputs=str(subject.inputs.get("parent", subject.inputs)["kind"]),
        )

    def relay(subject: Subject) -> Callable[[JobOutcome], None] | None:
        if early is None:
            return None
        report = early
        return lambda outcome: report(
            _module_result(subject, outcome, outcome.status, options.mode),
            soften_guessed(diagnosed(outcome, context(subject, outcome)), subject),
        )

    def recorded(parent: Subject) -> list[str]:
        """The files whose part classes `parent`'s export records: none, no recording pass."""
        if parent.inputs_kind not in REAL_INPUTS:
            return []
        # the file's classes that are, or may be, its parts (what it holds tells: covered.py)
        own = [path] if any(t.part_of == parent.name or unresolved(t) for t in subjects) else []
        return own + [other.path for other in others if other.path != path]

    # a parent whose parts' classes did not change records nothing again (part_records.py)
    records = part_records(engine)
    recordings = [records.plan(doc, s, strict, recorded(s), others, options) for s, strict in jobs]
    outcomes = list(
        await asyncio.gather(
            *(
                engine.run(make_job(doc, subject, strict, options, recording.files), relay(subject))
                for (subject, strict), recording in zip(jobs, recordings, strict=True)
            )
        )
    )
    for recording, outcome in zip(recordings, outcomes, strict=True):
        records.settle(recording, outcome)
    first = [(subject, outcome) for (subject, _), outcome in zip(jobs, outcomes, strict=True)]
    coverage = Coverage(path, first)
    covered = {t.name for t in subjects if coverage.covers(t)}
    subjects = coverage.marked(subjects)  # a class an export holds is its part
    held = [(subject, strict) for subject, strict in held if not coverage.covers(subject)]
    # Then each part its parent recorded inputs for, alone with them (parts.py).
    parts = recorded_parts(subjects, first, path, others)
    part_jobs = [(p.subject, strict) for p in parts.values() for strict in tracers(options.mode)]
    for (subject, _), done in zip(jobs, outcomes, strict=True):
        if (part_jobs or held) and (report := relay(subject)) is not None:
            report(done)  # the parents' results are final: shown while their parts are checked
    # A part's lowering is its parent's: the parent's program already holds the part's nodes.
    alone = dataclasses.replace(options, lowerings=("export",))
    outcomes += await asyncio.gather(
        *(engine.run(make_job(doc, subject, strict, options), relay(subject)) for subject, strict in held),
        *(engine.run(make_job(doc, subject, strict, alone)) for subject, strict in part_jobs),
    )
    jobs += held + part_jobs
    names = {t.name for t in subjects} - covered
    result.diagnostics += [f for f in read_findings(doc) if f.module in names]
    checked = {subject.name for subject, _ in jobs}
    for subject in subjects:
        unrecorded = subject.part_of is not None and subject.name not in parts
        if unrecorded or (
            subject.name not in checked and (unresolved(subject) or subject.inputs_kind == "none")
        ):
            # a part its parent did not record inputs for is checked by its parent's export only;
            # a class an export covers, by that export; a compiled training step, never
            result.modules.append(_module_result(subject, None, "skipped", options.mode))
    by_subject: dict[str, list[tuple[JobOutcome, DiagnosisContext]]] = {}
    for (subject, _), outcome in zip(jobs, outcomes, strict=True):
        status = outcome.status if subject.name not in parts or reached_export(outcome) else "skipped"
        result.modules.append(_module_result(subject, outcome, status, options.mode))
        by_subject.setdefault(subject.name, []).append((outcome, context(subject, outcome)))
    by_name = {subject.name: subject for subject in subjects} | {n: p.subject for n, p in parts.items()}
    said: dict[str, list[Finding]] = {}
    for name, runs in by_subject.items():  # parents first: a part's findings are weighed against theirs
        module = ModuleRuns(by_name[name], runs, path)
        if name in parts:
            parent = parts[name].parent
            module.runs = [(outcome, ctx) for outcome, ctx in runs if reached_export(outcome)]
            module.part, module.parent_said = parts[name], said.get(parent, [])
            module.parent_exported = {
                ctx.mode for o, ctx in by_subject.get(parent, []) if o.status == "exported"
            }
        said[name] = module_findings(module)
        result.diagnostics.extend(said[name])
    result.diagnostics = file_findings(result.diagnostics)
    result.modules.sort(key=lambda m: m.line)
    return result


def _module_result(
    subject: Subject, outcome: JobOutcome | None, status: str, mode: str | None
) -> ModuleResult:
    line = getattr(subject.node, "lineno", 1) - 1
    tracer = mode or "non-strict"
    if outcome is not None and mode in (None, "both"):
        tracer = "strict" if outcome.strict else "non-strict"
    if subject.compile is not None:
        tracer = "compile"
        status = "compiled" if status == "exported" else status  # a compile check, not an export
    summary = outcome.summary if outcome else None
    return ModuleResult(
        name=subject.name,
        line=line,
        inputs=cast(InputsKind, subject.inputs_kind),
        mode=tracer,
        status=cast(Status, status),
        seconds=outcome.seconds if outcome else 0.0,
        ops=summary.get("ops") if summary else None,
        graph=summary,
        timings=outcome.timings if outcome else {},
        lowerings=lowering_facts(outcome),
        tree=tree_of(outcome),
        compiled=compile_counts(outcome),
    )


def compile_counts(outcome: JobOutcome | None) -> dict[str, Any] | None:
    """A compile check's graphs, breaks and recompiles (the lens, JSON, the cache); None: an export."""
    report = outcome.compile if outcome is not None else None
    if report is None:
        return None
    return {
        "graphs": report["graphs"],
        "breaks": len(report["breaks"]),
        "recompiles": len(report["recompiles"]),
        "fullgraph": report["fullgraph"],
    }


def lowering_facts(outcome: JobOutcome | None) -> list[LoweringResult]:
    """Each lowering's verdict without its findings (those are diagnostics): hover, JSON, the cache."""
    facts: list[LoweringResult] = []
    for result in outcome.lowerings if outcome is not None else []:
        kept = LoweringResult(target=result["target"], ok=result["ok"])
        if "seconds" in result:
            kept["seconds"] = result["seconds"]
        if "facts" in result:
            kept["facts"] = result["facts"]
        if "skipped" in result:
            kept["skipped"] = result["skipped"]
        facts.append(kept)
    return facts


def default_roots() -> list[str]:
    return [os.getcwd()]
