"""ExportLens's score on the real-code corpus: the figures issues #13 and #26 "done when" ask for.

    .venv/bin/python bench/realcode_score.py [--case NAME] [--timeout S] [--slow] [--python PY]

Checks every file of each case of tests/data/realcode/corpus as `exportlens check <case folder>`
does (covered.py: the export scripts first), in each tracer (non-strict, strict), through the real
worker, under the default settings (the timeout, the search for further failures, the device
policy: lsp/settings.py), and compares with torch's own verdicts (tests/realcode_expected.py, read
by hand from torch's output). Prints one row per export call and tracer, then: cases, failing cases
flagged, culprits located (%), right codes (%), error findings on modules that torch exports (false
errors), and "could not check" lines (`no-example-inputs`, `guessed-inputs-failed`) on a class an
export call exports or builds its module from, in any file of the case (what the scripts build:
tests/realcode_classes.py). Done when located >= 95 % and false errors == 0 and no such line.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "server"), str(ROOT)]  # exportlens and tests/, from a checkout

from tests.realcode_expected import (  # noqa: E402
    CORPUS,
    EXPORTS,
    MODES,
    Score,
    case_files,
    covered_lines,
    score,
    scripts,
)

from exportlens.check import CheckOptions  # noqa: E402
from exportlens.check.placed import check_planned  # noqa: E402
from exportlens.check.plan import plan_file  # noqa: E402
from exportlens.check.sites import SiteIndex  # noqa: E402
from exportlens.config.settings import Settings  # noqa: E402
from exportlens.engine import Engine, EngineOptions  # noqa: E402
from exportlens.findings import FileResult  # noqa: E402

DEFAULTS = Settings()  # the score is what a user gets without changing a setting
CoveredLine = tuple[str, str, str, str]  # case, file, class, code


async def run(
    cases: set[str] | None, timeout: float, slow: bool, python: str | None = None
) -> tuple[list[Score], list[CoveredLine]]:
    engine = Engine(EngineOptions(timeout=timeout, memory_mb=DEFAULTS.memory_limit_mb, python=python))
    await engine.worker()
    scores: list[Score] = []
    covered: list[CoveredLine] = []
    try:
        for case in dict.fromkeys(case for case, _ in scripts(slow)):
            if cases and case not in cases:
                continue
            results: list[FileResult] = []
            for mode in MODES:
                options = CheckOptions(
                    mode=mode,
                    roots=[str(CORPUS / case)],
                    all_failures=DEFAULTS.all_failures,
                    meta_above_mb=DEFAULTS.meta_above_mb or None,
                    device=DEFAULTS.device,
                    lowerings=DEFAULTS.targets,
                )
                # each file as `exportlens check` places it in its workspace (the case folder)
                index, root = SiteIndex(), str(CORPUS / case)
                planned = [plan_file(f, options, index, root) for f in case_files(case, slow)]
                found = list(
                    await asyncio.gather(
                        *(p if isinstance(p, FileResult) else check_planned(engine, p) for p in planned)
                    )
                )
                print(f"checked {case} ({mode})", file=sys.stderr, flush=True)
                by_path = {r.path: r for r in found}
                for e in EXPORTS:
                    if e.case == case and (slow or not e.slow):
                        scores.append(score(by_path[str((CORPUS / case / e.script).resolve())], e, mode))
                results += found
            covered += [(case, *line) for line in covered_lines(results, case)]
    finally:
        await engine.close()
    return scores, covered


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f} %" if whole else "-"


def report(scores: list[Score], covered: list[CoveredLine]) -> str:
    rows = [f"{'case':22} {'tracer':10} {'torch':44} {'ExportLens':44} flag loc code false"]
    for s in scores:
        truth = s.export.truth(s.mode)
        want = f"{truth.code} {truth.path}:{truth.line(s.export.case) + 1}" if truth else "exports"
        got = ", ".join(f"{d.code} {Path(d.path).name}:{d.range.start.line + 1}" for d in s.errors)
        got = got or s.status
        marks = ["-" if v is None else ("y" if v else "N") for v in (s.flagged, s.located, s.code)]
        rows.append(
            f"{s.export.id:22} {s.mode:10} {want[:44]:44} {got[:44]:44} {marks[0]:>4} {marks[1]:>3} "
            f"{marks[2]:>4} {s.false_errors:>5}"
        )
    failing = [s for s in scores if s.export.truth(s.mode) is not None]
    exporting = [s for s in scores if s.export.truth(s.mode) is None]
    flagged = sum(bool(s.flagged) for s in failing)
    located = sum(bool(s.located) for s in failing)
    coded = sum(bool(s.code) for s in failing)
    false_errors = sum(s.false_errors for s in exporting)
    false_modules = sum(s.false_errors > 0 for s in exporting)
    rows += [
        "",
        f"cases (export call x tracer): {len(scores)} ({len(failing)} refused, {len(exporting)} export)",
        f"failing cases flagged:        {flagged}/{len(failing)} ({_pct(flagged, len(failing))})",
        f"culprits located:             {located}/{len(failing)} ({_pct(located, len(failing))})",
        f"right code:                   {coded}/{len(failing)} ({_pct(coded, len(failing))})",
        f"false error findings:         {false_errors} (in {false_modules}/{len(exporting)} exporting cases)",
        f"not-checked lines on exported classes: {len(covered)}"
        f" (in {len(dict.fromkeys(c[0] for c in covered))} case(s))",
        *(f"  {case}/{file}: {code} on `{name}`" for case, file, name, code in covered),
    ]
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--case", action="append")
    parser.add_argument("--timeout", type=float, default=DEFAULTS.timeout_seconds)
    parser.add_argument("--slow", action="store_true", help="also the exports torch alone takes a minute on")
    # another torch: tools/torch-venv.sh VERSION prints its interpreter (torch's verdicts are 2.13's)
    parser.add_argument("--python", help="the worker's interpreter (default: this one)")
    args = parser.parse_args()
    cases = set(args.case) if args.case else None
    scores, covered = asyncio.run(run(cases, args.timeout, args.slow, args.python))
    print(report(scores, covered))
    print(
        f"settings: timeout {args.timeout:g} s (default {DEFAULTS.timeout_seconds:g}), the search for"
        f" further failures {'on' if DEFAULTS.all_failures else 'off'}, device {DEFAULTS.device}"
    )


if __name__ == "__main__":
    main()
