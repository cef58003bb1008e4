"""`bench/all.py --quick` still runs end to end and reports every figure, so the benchmark cannot rot.

Only the shape of the output is checked, never a timing: the machine may be busy, and the
benchmark itself is the check of the figures (`make bench`).  About two minutes on an idle
2-core machine (four cold `python` runs that each import torch, a server, a few exports).
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent

# (target number, a part of the figure's name): one row each, in this order.
EXPECTED = [
    ("18.1", "first diagnostic, mlp, fresh server"),
    ("18.1", "first diagnostic, transformer, fresh server"),
    ("18.2", "reopen: first diagnostics"),
    ("18.3", "CLI examples/, unchanged tree"),
    ("18.6", "spares forked while typing"),
    ("18.4", "edit → diagnostics p50, mlp, 1 s pause"),
    ("18.4", "edit → diagnostics p95, mlp, 1 s pause"),
    ("18.4", "edit → diagnostics p50, mlp, edits back to back"),
    ("18.4", "edit → diagnostics p95, mlp, edits back to back"),
    ("18.4", "edit → diagnostics p50, transformer, 1 s pause"),
    ("18.4", "edit → diagnostics p95, transformer, 1 s pause"),
    ("18.4", "edit → diagnostics p50, transformer, edits back to back"),
    ("18.4", "edit → diagnostics p95, transformer, edits back to back"),
    ("18.5", "check of the MLP, non-strict"),
    ("18.5", "check of the MLP, strict"),
    ("3", "all failures, 3-failure module"),
    ("3", "transformer, branch last"),
    ("3", "transformer, branch first"),
    ("4", "meta weights, all failures off: check"),
    ("4", "meta weights, all failures off: job peak RSS"),
    ("4", "meta weights, all failures on: check"),
    ("4", "meta weights, all failures on: first diagnostic"),
    ("4", "meta weights, all failures on: job peak RSS"),
    ("5", "hover p99"),
    ("5", "server RSS"),
    ("5", "worker RSS, idle"),
    ("6", "first full check"),
    ("6", "re-check after editing one module"),
    ("6", "modules re-exported by that edit"),
    ("6", "cores used"),
    ("31", "compile check, MLP"),
    ("32", "CLI examples/, one file changed, warm daemon"),
    ("32", "editor reopen, warm daemon"),
    ("32", "idle daemon + worker + spare"),
]


def positive(value: Any) -> bool:
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    return number and math.isfinite(value) and value > 0


def counted(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def check_row(row: dict[str, Any], number: str, part: str) -> None:
    assert row["number"] == number and part in row["figure"], (number, part, row)
    # a count (no unit: spares forked while typing) may be 0, a time or a size may not
    measure = counted if row["unit"] == "" and number.startswith("18.") else positive
    assert measure(row["measured"]), row
    if row["reference"] is not None:  # the floor or the peer, measured in the same run
        assert measure(row["reference"]), row
        if row["compare"] is not None:  # a difference may be negative, never missing
            assert isinstance(row["compared"], (int, float)) and math.isfinite(row["compared"]), row
    # a figure with a target is judged; one without is reported only
    judged = ("n/a",) if row["target"] == "reported" else ("yes", "no")
    assert row["met"] in judged, row


@pytest.mark.timeout(600)  # generous: a loaded shared machine can take several times as long
def test_quick_benchmark_reports_every_figure(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "server"))
    proc = subprocess.run(
        # the real editor's figure needs the packaged extension and code-server: `make bench` runs it
        [sys.executable, str(ROOT / "bench" / "all.py"), "--quick", "--no-editor", "--out", str(tmp_path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=590,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]

    report = json.loads((tmp_path / "latest.json").read_text(encoding="utf-8"))
    rows = report["figures"]
    assert len(rows) == len(EXPECTED), [row["figure"] for row in rows]
    for row, (number, part) in zip(rows, EXPECTED, strict=True):
        check_row(row, number, part)
    assert report["plan"]["quick"] is True

    markdown = (tmp_path / "latest.md").read_text(encoding="utf-8")
    assert "quick run" in markdown.splitlines()[0]  # never mistaken for the figures of record
    for text in (markdown, proc.stdout):  # the same table, printed and written
        assert re.search(r"^\| #\s+\| figure", text, re.MULTILINE), text[:400]  # the table's header
        for row in rows:
            assert row["figure"] in text, row["figure"]
    assert "load average" in markdown and "cold/engine" in markdown  # machine facts, raw tables
