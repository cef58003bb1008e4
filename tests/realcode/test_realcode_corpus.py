"""ExportLens on the real-code corpus, against torch's own verdicts (tests/realcode_expected.py).

Each export call of each corpus script, in each tracer: a refusal must be flagged (an error
finding on the module), located (on torch's culprit line) and named (the right code); a module
torch exports must get no error finding; and no class an export call exports or builds its module
from gets a "could not check" line (`no-example-inputs`, `guessed-inputs-failed`) in any file of
the case. What ExportLens gets wrong today is a strict xfail whose reason names the pattern, so a
fix shows up as an XPASS to turn into a pass.
The checks run through the real worker, once per (case, tracer) on every file of the case as
`exportlens check <case folder>` does, without the search for a failing module's further failures
(only its first is scored).
"""

from __future__ import annotations

import asyncio

import pytest

from exportlens.check import CheckOptions
from exportlens.check.placed import check_planned
from exportlens.check.plan import plan_file
from exportlens.check.sites import SiteIndex
from exportlens.engine import Engine
from exportlens.findings import FileResult
from tests.conftest import check
from tests.realcode_expected import (
    CORPUS,
    COVERED_KNOWN,
    EXPORTS,
    MODEL_EXPORTS,
    MODEL_KNOWN,
    MODES,
    Export,
    case_files,
    covered_lines,
    model_files,
    score,
    scripts,
)
from tests.torch_versions import versioned, worker_version

_RESULTS: dict[tuple[str, str], dict[str, FileResult]] = {}


async def _case(engine: Engine, case: str, mode: str) -> dict[str, FileResult]:
    """Each file of the case (resolved path -> result), checked together as the CLI does."""
    if (case, mode) not in _RESULTS:
        files = case_files(case)
        # The first failure of each module is what is scored: no search for its others (faster).
        options = CheckOptions(mode=mode, roots=[str(CORPUS / case)], all_failures=False)
        index, root = SiteIndex(), str(CORPUS / case)
        planned = [plan_file(f, options, index, root) for f in files]
        results = await asyncio.gather(
            *(p if isinstance(p, FileResult) else check_planned(engine, p) for p in planned)
        )
        _RESULTS[case, mode] = {r.path: r for r in results}
    return _RESULTS[case, mode]


async def _result(engine: Engine, export: Export, mode: str) -> FileResult:
    return (await _case(engine, export.case, mode))[str((CORPUS / export.case / export.script).resolve())]


def _params() -> list[object]:
    params: list[object] = []
    for export in (versioned(e, worker_version()) for e in EXPORTS):  # torch's verdicts of its version
        if export.slow:  # torch alone takes about a minute: bench/realcode_score.py --slow
            continue
        for mode in MODES:
            aspects = ["no-false-error"] if export.truth(mode) is None else ["flagged", "located", "code"]
            for aspect in aspects:
                reason = export.known.get((mode, aspect))
                marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
                params.append(
                    pytest.param(export, mode, aspect, id=f"{export.id}-{mode}-{aspect}", marks=marks)
                )
    return params


@pytest.mark.parametrize(("export", "mode", "aspect"), _params())
async def test_corpus(engine: Engine, export: Export, mode: str, aspect: str) -> None:
    result = await _result(engine, export, mode)
    got = score(result, export, mode)
    truth = export.truth(mode)
    seen = [(d.code, d.path.split("/corpus/")[-1], d.range.start.line + 1) for d in got.errors]
    if truth is None:
        assert got.status == "exported" and got.false_errors == 0, (got.status, seen)
    else:
        where = f"{truth.code} at {truth.path}:{truth.line(export.case) + 1}"
        assert got.aspects()[aspect], (
            f"torch: {truth.torch}; expected {where}; ExportLens: {got.status} {seen}"
        )


def _cases() -> list[object]:
    cases = dict.fromkeys(case for case, _ in scripts())
    return [
        pytest.param(case, id=case, marks=[pytest.mark.xfail(strict=True, reason=COVERED_KNOWN[case])])
        if case in COVERED_KNOWN
        else case
        for case in cases
    ]


@pytest.mark.parametrize("case", _cases())
async def test_no_guess_on_an_exported_class(engine: Engine, case: str) -> None:
    """A class an export call exports (through a factory, a config, `.to(device)`) or builds its
    module from is checked by that export: never said to be uncheckable, never checked on a guess."""
    results = [r for mode in MODES for r in (await _case(engine, case, mode)).values()]
    assert covered_lines(results, case) == []


_MODEL_RESULTS: dict[tuple[str, str], FileResult] = {}


async def _model_result(engine: Engine, case: str, file: str) -> FileResult:
    if (case, file) not in _MODEL_RESULTS:
        _MODEL_RESULTS[case, file] = await check(engine, str(CORPUS / case / file))
    return _MODEL_RESULTS[case, file]


def _model_params() -> list[object]:
    params: list[object] = []
    for case, file in model_files():
        checks = ["", *MODEL_EXPORTS.get((case, file), [])]
        for module in checks:
            reason = MODEL_KNOWN.get((case, file, module))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            name = f"{case}/{file}" + (f"-{module}" if module else "")
            params.append(pytest.param(case, file, module, id=name, marks=marks))
    return params


@pytest.mark.parametrize(("case", "file", "module"), _model_params())
async def test_model_file(engine: Engine, case: str, file: str, module: str) -> None:
    """No error finding in a model file; a module torch exports on its inferred inputs is exported."""
    result = await _model_result(engine, case, file)
    if not module:
        errors = [
            (d.code, d.module, d.range.start.line + 1) for d in result.diagnostics if d.severity == "error"
        ]
        assert errors == []
    else:
        statuses = {m.name: m.status for m in result.modules}
        infos = [(d.code, d.message[:200]) for d in result.diagnostics if d.module == module]
        assert statuses.get(module) == "exported", (statuses.get(module), infos)
