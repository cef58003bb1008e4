"""Check one file: discover its modules, export each in the worker, diagnose.

Shared by the CLI and the language server; knows nothing about either.
"""

from __future__ import annotations

import ast
import asyncio
import os
import tokenize
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from .diagnosis import DiagnosisContext, diagnose
from .diagnosis.baked.confirm import baked_findings
from .discovery import Discovery, Target, discover
from .engine import Engine, Job, JobOutcome
from .findings import FileResult, Finding, InputsKind, ModuleResult, Range, Status
from .guessed import soften_guessed
from .merge import merge_tracers
from .outcomes import outcome_findings
from .textpos import SourceText

MODES = ("non-strict", "strict", "both")
# A module's first failure, before its others are searched for: (its result, its findings).
EarlyReport = Callable[[ModuleResult, list[Finding]], None]


@dataclass
class CheckOptions:
    mode: str | None = None  # None: the export call's `strict=` if any, else non-strict
    roots: list[str] = field(default_factory=list)  # workspace roots: importable, "user" code
    all_failures: bool = True  # after a failure, look for the module's other failures too
    meta_above_mb: float | None = 1024.0  # bigger models export with meta weights (no allocation)


def tracers(mode: str | None) -> list[bool | None]:
    """The `strict` flags to run: None lets the export call decide."""
    choices: dict[str | None, list[bool | None]] = {
        None: [None],
        "non-strict": [False],
        "strict": [True],
        "both": [False, True],
    }
    return choices[mode]


async def check_file(
    engine: Engine,
    path: str,
    source: str | None = None,
    options: CheckOptions | None = None,
    only: set[str] | None = None,
    early: EarlyReport | None = None,
) -> FileResult:
    """Check every module of `path` (its buffer text `source`, else the disk), or those in `only`.

    `early` hears of each failed module's first failure before its other failures are found
    (only when one tracer runs: merging two tracers needs both outcomes)."""
    options = options or CheckOptions()
    path = str(Path(path).resolve())
    result = FileResult(path)
    if source is None:
        try:
            source = read_source(path)
        except (SyntaxError, UnicodeDecodeError) as exc:  # undecodable: a finding, not a crash
            result.diagnostics.append(encoding_finding(path, exc))
            return result
    found = discover(source, path)
    text = SourceText(source)
    if found.error is not None:
        result.diagnostics.append(syntax_finding(path, text, found.error))
        return result
    targets = [t for t in found.targets if only is None or t.name in only]
    jobs = [
        (target, strict)
        for target in targets
        if target.inputs_kind != "none" and target.part_of is None
        for strict in tracers(options.mode)
    ]

    def context(target: Target, outcome: JobOutcome) -> DiagnosisContext:
        return DiagnosisContext(
            path=path,
            source=source,
            module=target.name,
            mode="strict" if outcome.strict else "non-strict",
            anchor=anchor_range(text, target),
            roots=options.roots,
            inputs=target.inputs_kind,
        )

    def relay(target: Target) -> Callable[[JobOutcome], None] | None:
        if early is None or len(tracers(options.mode)) > 1:
            return None
        report = early
        return lambda outcome: report(
            _module_result(target, outcome, outcome.status, options.mode),
            soften_guessed(outcome_diagnostics(outcome, context(target, outcome)), target),
        )

    outcomes = await asyncio.gather(
        *(
            engine.run(make_job(path, source, found, target, strict, options), relay(target))
            for target, strict in jobs
        )
    )
    # A file with an export call says what the user exports: its other classes are parts.
    has_export_call = any(t.inputs_kind == "export-call" for t in found.targets)
    for target in targets:
        if target.part_of is not None:  # checked by its parent's export, with the inputs it really gets
            result.modules.append(_module_result(target, None, "skipped", options.mode))
        elif target.inputs_kind == "none":
            result.modules.append(_module_result(target, None, "skipped", options.mode))
            used = any(target.name in other.uses for other in found.targets)
            if not used and not has_export_call:
                result.diagnostics.append(no_inputs_finding(path, text, target))
    by_target: dict[str, list[tuple[JobOutcome, DiagnosisContext]]] = {}
    for (target, _), outcome in zip(jobs, outcomes, strict=True):
        result.modules.append(_module_result(target, outcome, outcome.status, options.mode))
        by_target.setdefault(target.name, []).append((outcome, context(target, outcome)))
    by_name = {target.name: target for target in targets}
    for name, runs in by_target.items():
        findings = [finding for outcome, ctx in runs for finding in outcome_diagnostics(outcome, ctx)]
        if len(runs) > 1:
            findings = merge_tracers(findings, {ctx.mode: o.status == "exported" for o, ctx in runs})
        result.diagnostics.extend(soften_guessed(findings, by_name[name]))
    result.diagnostics = once_per_file(result.diagnostics)
    result.modules.sort(key=lambda m: m.line)
    result.diagnostics.sort(key=lambda d: (d.range.start.line, d.range.start.character, d.code))
    return result


def outcome_diagnostics(outcome: JobOutcome, ctx: DiagnosisContext) -> list[Finding]:
    if outcome.status == "failed" and outcome.failure is not None:
        return diagnose(outcome.failure, ctx)
    if outcome.status == "exported" and outcome.summary is not None:
        return baked_findings(outcome.summary, ctx)
    return outcome_findings(outcome, ctx)


def make_job(
    path: str, source: str, found: Discovery, target: Target, strict: bool | None, options: CheckOptions
) -> Job:
    module_name, sys_path = import_context(path, options.roots)
    return Job(
        path=path,
        source=source,
        module_name=module_name,
        sys_path=sys_path,
        target={"name": target.name, "class": target.class_name, "inputs": target.inputs},
        strict=strict,
        timeout=0.0,  # the engine's default
        load_until=found.load_until,
        all_failures=options.all_failures,
        meta_above_mb=options.meta_above_mb,
    )


def import_context(path: str, roots: list[str]) -> tuple[str, list[str]]:
    """The dotted name the file runs under, and what goes on sys.path.

    Inside packages (folders with __init__.py) the name is dotted from the
    top package, so relative imports work; never "__main__".
    """
    folder = Path(path).parent
    parts = [Path(path).stem]
    while (folder / "__init__.py").exists() and folder.parent != folder:
        parts.insert(0, folder.name)
        folder = folder.parent
    sys_path = [str(folder), str(Path(path).parent), *roots]
    return ".".join(parts), list(dict.fromkeys(sys_path))


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
    )


def anchor_range(text: SourceText, target: Target) -> Range:
    """The class name for a class target; the export call's first line otherwise."""
    node = target.node
    if isinstance(node, ast.ClassDef):
        line = node.lineno - 1
        start = text.line(line).find(node.name, node.col_offset)
        start = max(start, 0)
        return Range.of(line, start, line, start + len(node.name))
    line = getattr(node, "lineno", 1) - 1
    end_line = getattr(node, "end_lineno", line + 1) - 1
    end = getattr(node, "end_col_offset", None) if end_line == line else None
    return text.span(line, getattr(node, "col_offset", None), line if end is not None else None, end)


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


def no_inputs_finding(path: str, text: SourceText, target: Target) -> Finding:
    needs_args = target.inputs.get("why") == "constructor"
    reason = "its constructor needs arguments" if needs_args else "it has no example inputs"
    return Finding(
        path=path,
        range=anchor_range(text, target),
        severity="information",
        code="no-example-inputs",
        module=target.name,
        message=(
            f"ExportLens cannot check `{target.name}`: {reason}. Add an "
            f"`example_inputs(self)` method returning a tuple of tensors, or a "
            f'`torch.export.export({target.name}(...), (inputs,))` call under `if __name__ == "__main__":`.'
        ),
    )


def syntax_finding(path: str, text: SourceText, error: SyntaxError) -> Finding:
    line = max((error.lineno or 1) - 1, 0)
    return Finding(
        path=path,
        range=text.line_range(line),
        severity="error",
        code="syntax-error",
        message=f"Syntax error, nothing was exported: {error.msg}",
    )


def read_source(path: str) -> str:
    """The file's text, decoded as Python does: BOM or `# -*- coding: ... -*-`, else UTF-8."""
    with tokenize.open(path) as stream:
        return stream.read()


def encoding_finding(path: str, error: SyntaxError | UnicodeDecodeError) -> Finding:
    if isinstance(error, UnicodeDecodeError):
        line = Path(path).read_bytes()[: error.start].count(b"\n")
        why = f"byte 0x{error.object[error.start]:02x} is not valid {error.encoding}"
    else:
        line, why = max((error.lineno or 1) - 1, 0), error.msg
    return Finding(
        path=path,
        range=Range.of(line, 0, line, 0),
        severity="error",
        code="syntax-error",
        message=f"Cannot read this file, nothing was exported: {why}. Save it as UTF-8, or declare its "
        "encoding on the first line (`# -*- coding: latin-1 -*-`).",
    )


def default_roots() -> list[str]:
    return [os.getcwd()]
