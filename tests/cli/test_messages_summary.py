"""The summary read at a glance (issue 42, item 5): errors and warnings counted, the modules with
findings among those checked, and a run that checked nothing says so with why and exits with
`--unchecked-exit` (3 by default; 0 passes it). Through the real CLI and worker."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_cli import CLEAN, FAILING, run_cli

NOTED = "import torch\n\nSCALE = 2  # exportlens: ignore[dim-specialised]\n"  # a warning, no module


def test_errors_warnings_and_modules_with_findings(tmp_path: Path) -> None:
    for name, text in (("bad.py", FAILING), ("good.py", CLEAN), ("noted.py", NOTED)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    report = json.loads(run_cli(".", "--no-cache", "--format", "json", cwd=tmp_path).stdout)
    found = [d for f in report["files"] for d in f["diagnostics"]]
    errors = sum(d["severity"] == "error" for d in found)
    warnings = sum(d["severity"] == "warning" for d in found)
    assert errors and warnings, found
    flagged = {d["module"] for d in found if d["severity"] in ("error", "warning") and d.get("module")}
    done = run_cli(".", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    *_, totals, modules = done.stdout.splitlines()
    assert totals.endswith(f"; {errors} error(s), {warnings} warning(s)"), totals
    assert modules == f"2 module(s): 2 checked (2 on their own inputs), {len(flagged)} with findings", modules


def test_nothing_checked_is_said_and_exits_unchecked(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n', encoding="utf-8")
    done = run_cli("pyproject.toml", cwd=tmp_path)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "nothing was checked: no Python file among the paths given" in done.stdout, done.stdout
    passing = run_cli("pyproject.toml", "--unchecked-exit", "0", cwd=tmp_path)
    assert passing.returncode == 0, passing.stdout + passing.stderr
