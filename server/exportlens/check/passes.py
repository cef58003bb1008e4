"""What a check says about each module, from its jobs' outcomes: the passes, in their order.

A module's findings start as what its jobs' outcomes say (`diagnosed`: a failure diagnosed, what
a clean export baked in or a lowering refused, a crash, a timeout), then go through
`MODULE_PASSES` in order; the file's findings, all modules' together, through `FILE_PASSES`;
what is shown of them, through suppression.py's `as_configured` (comments, ignore, severity).
A new pass is a function added to one list, at the place its order needs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..diagnosis import DiagnosisContext, diagnose
from ..diagnosis.baked.confirm import baked_findings
from ..diagnosis.compiled import compile_findings
from ..diagnosis.lowerings import lowering_findings
from ..diagnosis.meta_weights import meta_weights_findings
from ..discovery import Subject
from ..engine import JobOutcome
from ..findings import Finding, by_position
from .guessed import soften_guessed
from .merge import merge_tracers
from .outcomes import outcome_findings
from .parts import RecordedPart, part_findings


@dataclass
class ModuleRuns:
    """One module's jobs in a check, and what its findings are weighed against."""

    subject: Subject  # a recorded part: with the inputs its parent gave it
    runs: list[tuple[JobOutcome, DiagnosisContext]]  # one per tracer
    file: str  # the checked file
    part: RecordedPart | None = None  # a part checked alone, on what its parent gave it
    parent_said: list[Finding] = field(default_factory=list)  # its parent's findings, passes done
    parent_exported: set[str] = field(default_factory=set)  # the tracers its parent exports in


def diagnosed(outcome: JobOutcome, ctx: DiagnosisContext) -> list[Finding]:
    """What one job's outcome says, before any pass."""
    if outcome.compile:  # a compile check (worker/job/compiled.py)
        return compile_findings(outcome.compile, ctx, outcome.compile["fullgraph"])
    if outcome.status == "failed" and outcome.failure is not None:
        return diagnose(outcome.failure, ctx)
    if outcome.status == "exported" and outcome.summary is not None:
        lowered = lowering_findings(outcome.lowerings, ctx)
        noted = meta_weights_findings(outcome.summary, ctx)
        return baked_findings(outcome.summary, ctx) + noted + lowered
    return outcome_findings(outcome, ctx)


def tracers_merged(findings: list[Finding], module: ModuleRuns) -> list[Finding]:
    """Mode `both`: one finding per culprit, saying which tracer refused (merge.py)."""
    if len(module.runs) < 2:
        return findings
    return merge_tracers(findings, {ctx.mode: o.status == "exported" for o, ctx in module.runs})


def weighed_against_parent(findings: list[Finding], module: ModuleRuns) -> list[Finding]:
    """A part's findings less its parent's; what only the part alone hits, information (parts.py)."""
    if module.part is None:
        return findings
    return part_findings(findings, module.part, module.parent_said, module.parent_exported)


def on_the_parts_file(findings: list[Finding], module: ModuleRuns) -> list[Finding]:
    """Another file's part class: what lands on that file is its own."""
    if module.part is None or module.part.file == module.file:
        return findings
    return [f for f in findings if f.path == module.part.file]


def guesses_softened(findings: list[Finding], module: ModuleRuns) -> list[Finding]:
    """Errors on guessed inputs: one information finding (guessed.py)."""
    return soften_guessed(findings, module.subject)


ModulePass = Callable[[list[Finding], ModuleRuns], list[Finding]]
MODULE_PASSES: tuple[ModulePass, ...] = (
    tracers_merged,
    weighed_against_parent,
    on_the_parts_file,
    guesses_softened,
)


def module_findings(module: ModuleRuns) -> list[Finding]:
    findings = [finding for outcome, ctx in module.runs for finding in diagnosed(outcome, ctx)]
    for step in MODULE_PASSES:
        findings = step(findings, module)
    return findings


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


FilePass = Callable[[list[Finding]], list[Finding]]
FILE_PASSES: tuple[FilePass, ...] = (once_per_file, by_position)


def file_findings(findings: list[Finding]) -> list[Finding]:
    for step in FILE_PASSES:
        findings = step(findings)
    return findings
