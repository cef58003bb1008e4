"""The diagnosis and fix suites against each torch version: a table of version x suite.

    python tools/versions_matrix.py [--suites diagnosis,fixes] [--fast] VERSION...

pytest always runs in this interpreter (the main venv); the worker runs the version's venv
(tools/torch-venv.sh, cached under .venv-torch/; the main venv's own version is used as is),
named by EXPORTLENS_TEST_PYTHON, which tests/conftest.py's `engine` and tests/lsp/conftest.py's
shared server pass on.  One pytest run per cell, one after the other (the machine has 2 cores).
Exit status 1 when any cell has a failure or error.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The suites, by what they exercise (globs: new files of a kind join their suite); `fast` leaves
# out the slow real-code and property files.
SUITES: dict[str, list[str]] = {
    "diagnosis": [
        "tests/diagnosis/test_diagnosis_*.py",
        "tests/diagnosis/test_torch_versions.py",
        "tests/worker/test_warmup_state.py",
        "tests/diagnosis/test_mode_both.py",
        "tests/worker/test_allfailures_records.py",
        "tests/diagnosis/test_later_failures.py",
        "tests/diagnosis/test_traced_only.py",
        "tests/diagnosis/baked/test_silent_*.py",
        "tests/realcode/test_realcode_*.py",
    ],
    "fixes": ["tests/fixes/test_*.py"],
    "compile": [
        "tests/compile/test_*.py",
        "tests/cli/test_cli_compile.py",
        "tests/lsp/test_compile_server.py",
    ],
}
SLOW = {
    "tests/realcode/test_realcode_corpus.py",
    "tests/realcode/test_realcode_library.py",
    "tests/realcode/test_realcode_torch_layers.py",
    "tests/fixes/test_cond_property.py",
}


@dataclass
class Cell:
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    seconds: float = 0.0

    def __str__(self) -> str:
        bad = f", {self.failed} failed" if self.failed else ""
        bad += f", {self.errors} errors" if self.errors else ""
        bad += f", {self.skipped} skipped/xfailed" if self.skipped else ""
        return f"{self.passed} passed{bad} ({self.seconds:.0f} s)"


def main_torch() -> str:
    """The torch version of the main venv (this interpreter)."""
    found = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.__version__.split('+')[0])"],
        capture_output=True,
        text=True,
        check=True,
    )
    return found.stdout.strip()


def python_for(version: str, main: str) -> str:
    if version == main:
        return sys.executable
    script = str(ROOT / "tools" / "torch-venv.sh")
    made = subprocess.run(["/bin/sh", script, version], capture_output=True, text=True)
    if made.returncode != 0:
        raise SystemExit(f"tools/torch-venv.sh {version} failed:\n{made.stderr[-2000:]}")
    return made.stdout.strip().splitlines()[-1]


def paths(suite: str, fast: bool) -> list[str]:
    found = [str(p.relative_to(ROOT)) for pattern in SUITES[suite] for p in sorted(ROOT.glob(pattern))]
    return [p for p in dict.fromkeys(found) if not (fast and p in SLOW)]


def run_cell(python: str, files: list[str], report: Path) -> Cell:
    env = dict(os.environ, EXPORTLENS_TEST_PYTHON=python)
    started = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}", *files],
        cwd=ROOT,
        env=env,
    )
    cell = Cell(seconds=time.monotonic() - started)
    if not report.exists():
        cell.errors = 1
        return cell
    for suite in ET.parse(report).getroot().iter("testsuite"):  # noqa: S314 - pytest's own report
        tests, fails = int(suite.get("tests", 0)), int(suite.get("failures", 0))
        errors, skipped = int(suite.get("errors", 0)), int(suite.get("skipped", 0))
        cell.failed += fails
        cell.errors += errors
        cell.skipped += skipped
        cell.passed += tests - fails - errors - skipped
    return cell


def table(cells: dict[tuple[str, str], Cell], versions: list[str], suites: list[str]) -> str:
    rows = [["torch", *suites]] + [[v, *(str(cells[v, s]) for s in suites)] for v in versions]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |" for r in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("versions", nargs="+")
    parser.add_argument("--suites", default="diagnosis,fixes")
    parser.add_argument("--fast", action="store_true", help="leave out the slow real-code and property files")
    parser.add_argument("--reports", default="dist/versions", help="junit XML per cell")
    args = parser.parse_args()
    suites = args.suites.split(",")
    main = main_torch()
    reports = ROOT / args.reports
    reports.mkdir(parents=True, exist_ok=True)
    cells: dict[tuple[str, str], Cell] = {}
    for version in args.versions:
        python = python_for(version, main)
        for suite in suites:
            print(f"== torch {version}: {suite} ({python})", flush=True)
            report = reports / f"{version}-{suite}.xml"
            report.unlink(missing_ok=True)
            cells[version, suite] = run_cell(python, paths(suite, args.fast), report)
    print()
    print(table(cells, args.versions, suites))
    return 1 if any(c.failed or c.errors for c in cells.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
