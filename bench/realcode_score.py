"""ExportLens's score on the real-code corpus: the figure issue #13's "done when" asks for.

    .venv/bin/python bench/realcode_score.py [--case NAME] [--timeout S] [--slow]

Checks every export script of tests/data/realcode/corpus in each tracer (non-strict, strict),
through the real worker, and compares with torch's own verdicts (tests/realcode_expected.py,
read by hand from torch's output). Prints one row per export call and tracer, then: cases,
failing cases flagged, culprits located (%), right codes (%), and error findings on modules
that torch exports (false errors). Done when located >= 95 % and false errors == 0.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "server"), str(ROOT)]  # exportlens and tests/, from a checkout

from tests.realcode_expected import CORPUS, EXPORTS, MODES, Score, score, scripts  # noqa: E402

from exportlens.check import CheckOptions, check_file  # noqa: E402
from exportlens.engine import Engine, EngineOptions  # noqa: E402


async def run(cases: set[str] | None, timeout: float, slow: bool) -> list[Score]:
    engine = Engine(EngineOptions(timeout=timeout))
    await engine.worker()
    scores: list[Score] = []
    try:
        for case, script in scripts(slow):
            if cases and case not in cases:
                continue
            path = CORPUS / case / script
            for mode in MODES:
                # Only a module's first failure is scored: no search for its others (faster).
                options = CheckOptions(mode=mode, roots=[str(path.parent)], all_failures=False)
                result = await check_file(engine, str(path), None, options)
                print(f"checked {case}/{script} ({mode})", file=sys.stderr, flush=True)
                scores.extend(score(result, e, mode) for e in EXPORTS if (e.case, e.script) == (case, script))
    finally:
        await engine.close()
    return scores


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f} %" if whole else "-"


def report(scores: list[Score]) -> str:
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
    ]
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--case", action="append")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--slow", action="store_true", help="also the exports torch alone takes a minute on")
    args = parser.parse_args()
    scores = asyncio.run(run(set(args.case) if args.case else None, args.timeout, args.slow))
    print(report(scores))


if __name__ == "__main__":
    main()
