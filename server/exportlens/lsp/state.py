"""Per-document state the session keeps (session.py): results, what runs, where modules are checked."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from ..check.plan import Placement
from ..codes.lowerings import CODES as LOWERING_CODES
from ..config.settings import Settings
from ..findings import Finding, ModuleResult


@dataclass
class ModuleEntry:
    """The last finished check of one module."""

    key: str  # check/keys.py's key of the text and settings it was checked with
    results: list[ModuleResult]  # one per tracer (two with mode "both")
    findings: list[Finding]
    version: int  # document version it was checked on
    site: str | None = None  # the other workspace file whose export call provided the inputs
    cached: bool = False  # restored from the results store (persist/): shown marked until re-checked
    early: bool = False  # the job's first failure, shown while the rest of its check runs

    @property
    def errors(self) -> int:
        """Errors of the export itself: a lowering's refusal is no export issue (`lowered`)."""
        return sum(1 for f in self.findings if f.severity == "error" and f.code not in LOWERING_CODES)

    @property
    def lowered(self) -> dict[str, int]:
        """Lowering -> its errors after a clean export (ONNX, Core ATen, AOTInductor refusals)."""
        counts: dict[str, int] = {}
        for f in self.findings:
            if f.severity == "error" and f.code in LOWERING_CODES:
                lowering = str((f.fix or {}).get("target", ""))
                counts[lowering] = counts.get(lowering, 0) + 1
        return counts


def early_entry(
    before: ModuleEntry | None,
    key: str,
    result: ModuleResult,
    findings: list[Finding],
    version: int,
    site: str | None,
) -> ModuleEntry:
    """A job's first failure, shown while the rest of its check runs; with both tracers, added to
    the other tracer's of the same version, a culprit said once (the final entry merges them)."""
    if before is None or not before.early or before.version != version:
        return ModuleEntry(key, [result], findings, version, site, early=True)
    said = {(f.range.start.line, f.range.start.character, f.code) for f in before.findings}
    new = [f for f in findings if (f.range.start.line, f.range.start.character, f.code) not in said]
    return ModuleEntry(key, [*before.results, result], [*before.findings, *new], version, site, early=True)


@dataclass
class FileState:
    uri: str
    path: str  # resolved, as the engine reports it
    entries: dict[str, ModuleEntry] = field(default_factory=dict)
    running: set[str] = field(default_factory=set)
    cancelled: set[str] = field(default_factory=set)  # the user cancelled these modules' exports
    static: list[Finding] = field(default_factory=list)  # syntax error, untrusted notice
    task: asyncio.Task[None] | None = None
    placement: Placement = field(default_factory=Placement)  # modules another file checks (check/plan.py)
    changed_lines: set[int] = field(default_factory=set)  # since the last check started
    context: str = ""  # what stored results are valid under (persist/fingerprint.py), from the last open/save
    last_published: str = ""  # what was last published (scheduler.py): an identical one is skipped
    skipped: str | None = None  # why it was last not checked (session.py's `skipped`), said once
    settings: Settings | None = None  # what its last check ran under (project_watch.py compares)
