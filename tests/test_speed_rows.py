"""bench/speed_rows.py's pure parts: the generated many-module file, the rows, the table.

No timing here (the bench measures; the machine may be busy): only that the file a row checks is
what it says, that the corpus rows are the failing and the slow cases, and that the table shows
each figure against its target.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import re
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))

from many_file import class_names, many_source
from speed_probe import probe
from speed_rows import EARLY_PREFIX, corpus_rows, first_finding, selected, stage_seconds, torch_stages
from speed_table import Measured, table


def test_the_generated_file_has_its_modules_one_branch_and_a_main_block() -> None:
    tree = ast.parse(many_source(100))
    classes = [n.name for n in tree.body if isinstance(n, ast.ClassDef)]
    assert len(classes) == len(set(classes)) == 100
    assert classes == class_names(100)
    assert classes.index("Branchy") not in (0, 99)  # neither the first nor the last checked
    branchy = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Branchy")
    assert any(isinstance(n, ast.If) for n in ast.walk(branchy))
    main = [n for n in tree.body if isinstance(n, ast.If)]
    assert len(main) == 1 and "torch.export.export" in ast.unparse(main[0])
    scales = {line for line in many_source(100).splitlines() if "self.project(x) *" in line}
    assert len(scales) == 99  # each small module distinct, not one text repeated


def test_corpus_rows_are_the_failing_and_slow_cases_and_case_selects_them() -> None:
    rows = corpus_rows(slow=False)
    names = {r.name for r in rows}
    assert "sam/export_sam.py" in names and "cleanrl/export_cleanrl.py" in names
    assert "mamba/compile_mamba.py" in names  # slow, and no export script: its compile script
    assert "sam/export_sam_any_size.py" not in names  # marked slow: --slow only
    assert "sam/export_sam_any_size.py" in {r.name for r in corpus_rows(slow=True)}
    assert "td3/export_td3.py" not in names  # torch exports all of it, and quickly
    assert all(r.script.is_file() and r.script.parent == r.folder for r in rows)
    assert {r.name for r in selected(rows, ["whisper"])} == {"whisper/export_whisper.py"}


def measured(**given: object) -> Measured:
    base: dict[str, object] = dict(
        row="sam/export_sam.py",
        torch_refusal_s=10.0,
        torch_s=20.0,
        torch_cpu_s=25.0,
        torch_rss_mb=900.0,
        torch_pss_mb=950.0,
        torch_refusals=2,
        first_s=12.0,
        complete_s=29.0,
        cpu_s=50.0,
        rss_mb=1000.0,
        pss_mb=1500.0,
        errors=1,
        jobs=6,
        stages={"import": 1.0, "export-strict": 8.0},
    )
    return Measured(**{**base, **given})  # type: ignore[arg-type]


def test_the_table_gives_each_ratio_against_its_target() -> None:
    late = measured()
    fast = measured(row="many100", generated=True, first_s=5.0, complete_s=21.5)
    text = table([late, fast])
    lines = [line for line in text.splitlines() if line.startswith(("sam/", "many100"))][:2]
    first, second = (re.split(r"\s{2,}", line.strip()) for line in lines)
    assert first[4:9] == ["1.2x", "NO", "29.0", "1.45x", "yes (1.5x)"]  # 12 s after torch's 10 s
    assert second[4:9] == ["0.5x", "yes", "21.5", "1.07x", "yes (+2s)"]  # 21.5 s <= 20 s + 2 s
    assert measured(complete_s=22.5, generated=True).complete_met is False
    assert measured(torch_refusal_s=None).first_met is None  # torch exported everything
    assert "sam/export_sam.py: 6 jobs" in text and "export-strict 8.0" in text


def test_stage_seconds_split_the_export_by_tracer_and_sum_over_jobs() -> None:
    results = [
        {"mode": "non-strict", "timings": {"load": 0.5, "export": 2.0, "cpu": 9.0}},
        {"mode": "strict", "timings": {"load": 0.25, "export": 3.0, "more_failures": 4.0}},
    ]
    assert stage_seconds(results) == {
        "import": 0.75,
        "export-nonstrict": 2.0,
        "export-strict": 3.0,
        "later-failures": 4.0,
    }


def test_torch_stages_sum_each_tracers_exports_and_leave_the_rest() -> None:
    records = [
        {"mode": "non-strict", "verdict": "exported", "seconds": 1.5},
        {"mode": "strict", "verdict": "UserError", "seconds": 2.5},
        {"mode": "", "verdict": "script-error"},
    ]
    assert torch_stages(records, 10.0) == {"export-nonstrict": 1.5, "export-strict": 2.5, "rest": 6.0}


@pytest.mark.slow
def test_the_first_finding_is_the_early_stderr_line_when_it_comes_first(tmp_path: Path) -> None:
    """The probe stamps stderr lines as it reads them; the row takes the earlier of the CLI's early
    line and the report's first error (a real child process, sleeping between the two)."""
    script = (
        "import sys, time\n"
        f"print({EARLY_PREFIX + 'a.py:3:5: error[data-dependent-branch] x'!r}, file=sys.stderr, flush=True)\n"
        "time.sleep(0.5)\n"
        "print('a.py:3:5: error[data-dependent-branch] x', flush=True)\n"
    )
    run = probe([sys.executable, "-c", script], tmp_path, dict(os.environ), tmp_path / "err.txt")
    (early_at, _), (report_at, _) = run.err_lines[0], run.lines[0]
    assert report_at - early_at >= 0.4
    assert first_finding(run) == early_at
    assert "still checking" in (tmp_path / "err.txt").read_text()  # the stderr file is still kept
    quiet = dataclasses.replace(run, err_lines=[(0.0, "exportlens: 3 modules")])
    assert first_finding(quiet) == report_at
