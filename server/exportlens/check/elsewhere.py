"""Modules of a buffer checked by running another workspace file (from disk): where, and how.

- An export site (sites.py's `find`): `export.py` exports `GPT` of this file; that call's
  findings that land here are `GPT`'s.
- A parent file: the other classes of a file with an export site are parts of what that site
  exports; a file with no site of its own (`blocks.py`) is checked through the first workspace
  file whose module with real inputs imports it (`model.py`, sites.py's `parent_file`). That
  export records what each class receives (worker/parts/part_inputs.py), the class is checked alone
  with it (parts.py), and what lands here is shown here. A class the parent's module holds but
  whose inputs were not recorded (the export failed first) is covered by that export all the same;
  one it does not hold is not in the answer: the document's own check takes it (placed.py), as if
  no export covered it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from ..discovery import Subject, discovery_of
from ..document import Document
from ..engine import Engine
from ..findings import Finding, ModuleResult, Range, Related
from ..reading import read_document
from .jobs import CheckOptions
from .keys import class_span
from .parts import foreign_name
from .run import EarlyReport, check_file
from .sites import PARENT_INPUTS
from .static_findings import anchor_range

Checked = tuple[list[ModuleResult], list[Finding]]  # a batch's module results and findings
RANK = {"error": 0, "warning": 1, "information": 2, "hint": 3}
INPUTS_WORDS = {"example-inputs": "example ", "inferred": "guessed "}


async def check_elsewhere(
    engine: Engine,
    doc: Document,
    options: CheckOptions,
    file: str,
    exported: Sequence[Subject],
    parts: Sequence[Subject],
    early: EarlyReport | None = None,
) -> Checked:
    """Run `file`'s check of the modules of `exported` (their export site), or of its modules with
    real inputs (a parent file), with `parts` checked as the parts they are there. `early` hears
    of each exported module's result (what lands on this file) before its parts are checked."""
    if exported:
        only = {t.name for t in exported}
    else:
        only = {t.name for t in discovery_of(read_document(file)).subjects if t.inputs_kind in PARENT_INPUTS}
    by_foreign = {foreign_name(doc.path, t.name): t for t in parts}
    names = {t.name: t for t in exported}

    def relay(result: ModuleResult, findings: list[Finding]) -> None:
        if early is None or (subject := names.get(result.name)) is None:
            return
        via = _via(file, result)
        here = [
            dataclasses.replace(f, module=subject.name, related=[*f.related, via])
            for f in findings
            if Path(f.path).resolve() == Path(doc.path)
        ]
        early(dataclasses.replace(result, line=class_span(subject.node)[0]), here)

    others = [doc] if parts else []
    options = dataclasses.replace(options, purpose=f"check of {doc.path}")
    result = await check_file(engine, file, None, options, only=only, early=relay, others=others)
    site_module = next((m for m in result.modules if m.name in only), None)
    via = _via(file, site_module)
    modules: list[ModuleResult] = []
    for m in result.modules:
        if (subject := by_foreign.get(m.name) or names.get(m.name)) is not None:
            modules.append(dataclasses.replace(m, name=subject.name, line=class_span(subject.node)[0]))
    answered = {m.name for m in modules}
    uncalled = [t for t in parts if t.name not in answered]
    modules += [_covered(t, options.mode) for t in exported_there(doc, uncalled, result.modules)]
    findings = []
    for f in result.diagnostics:
        if Path(f.path).resolve() != Path(doc.path):
            continue
        owner = by_foreign.get(f.module or "") or names.get(f.module or "") or _holder(parts, f)
        if owner is None:
            continue
        findings.append(dataclasses.replace(f, module=owner.name, related=[*f.related, via]))
    for subject in exported:
        failed = [
            m for m in result.modules if m.name == subject.name and m.status not in ("exported", "compiled")
        ]
        if failed and not any(f.module == subject.name for f in findings):
            findings.append(_site_failed(doc, subject, file, via, result.diagnostics, failed))
    return modules, findings


def _via(file: str, result: ModuleResult | None) -> Related:
    """The related note on the other file's call whose inputs were used: the export call, or the
    compiled model's first call (check/sites.py), at its own span; the module's line otherwise."""
    if result is None:
        return Related(file, Range.of(0, 0, 0, 0), "the export call whose inputs were used")
    if result.mode == "compile":
        note = "the call of the compiled model whose inputs were used"
    elif result.inputs == "export-call":
        note = "the export call whose inputs were used"
    else:  # a parent file's module with an `example_inputs()` (or guessed inputs)
        note = f"`{result.name}`, whose {INPUTS_WORDS.get(result.inputs, '')}inputs were used"
    site = read_document(file)
    subject = next((t for t in discovery_of(site).subjects if t.name == result.name), None)
    call = subject.inputs.get("call") if subject is not None else None
    if isinstance(call, list) and len(call) == 4:
        line, col, end_line, end_col = call
        return Related(file, site.source_text.span(line - 1, col, end_line - 1, end_col), note)
    return Related(file, site.source_text.line_range(result.line), note)


def _holder(parts: Sequence[Subject], finding: Finding) -> Subject | None:
    """A parent's finding on this file: the class whose lines hold it, else the first part."""
    line = finding.range.start.line
    inside = [t for t in parts if class_span(t.node)[0] <= line <= class_span(t.node)[1]]
    return inside[0] if inside else (parts[0] if parts else None)


def exported_there(doc: Document, parts: Sequence[Subject], modules: Sequence[ModuleResult]) -> list[Subject]:
    """The classes of `parts` that a module of the other file exported (`load_model(cfg)` builds
    `Net`) or built into what it exported, though no inputs of theirs were recorded (the export
    failed, or timed out, before): covered by that export, as check/covered.py's."""
    held = {(c["file"], c["class"]) for m in modules if m.tree for c in (m.tree["root"], *m.tree["parts"])}
    return [t for t in parts if (doc.path, t.class_name) in held]


def _covered(subject: Subject, mode: str | None) -> ModuleResult:
    line = class_span(subject.node)[0]
    return ModuleResult(subject.name, line, "recorded", mode or "non-strict", "skipped")


def _site_failed(
    doc: Document,
    subject: Subject,
    site: str,
    via: Related,
    diagnostics: list[Finding],
    failed: list[ModuleResult],
) -> Finding:
    """The failure landed in the other file only: say so on the class. What is ExportLens's own
    there (a timeout, inputs it could not build) is re-said as it is, under its own code and
    severity: never `export-site-failed`'s error for what torch did not refuse (issue 40)."""
    theirs = [f for f in diagnostics if f.module == subject.name] or diagnostics
    errors = [f for f in theirs if f.severity == "error"]
    where = f"{Path(site).name}:{via.range.start.line + 1}"
    if theirs and not errors:
        said = min(theirs, key=lambda f: RANK[f.severity])
        return dataclasses.replace(
            said,
            path=doc.path,
            range=anchor_range(doc.source_text, subject),
            module=subject.name,
            related=[via],
            message=f"Checking `{subject.name}` with the inputs of {where}: {said.message}",
        )
    detail = "; ".join(f.message for f in errors)[:500] or failed[0].status
    doing = "Compiling" if failed[0].mode == "compile" else "Exporting"  # a compile site's check
    return Finding(
        path=doc.path,
        range=anchor_range(doc.source_text, subject),
        severity="error",
        code="export-site-failed",
        module=subject.name,
        related=[via],
        message=f"{doing} `{subject.name}` with the inputs of {where} failed: " + detail,
    )
