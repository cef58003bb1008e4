"""`bench/run.py --quick` still runs end to end and reports every figure, so the benchmark cannot rot.

Only the shape of the output is checked, never a timing: the machine may be busy.
About a minute on an idle 2-core machine (four cold `python` runs that each import torch).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODELS = ("mlp", "transformer")
MODES = ("non-strict", "strict")
ROW_FIGURES = ("cold_s", "floor_s", "engine_p50_s", "engine_p95_s", "worker_p50_s")
TOP_FIGURES = (
    "worker_startup_s",
    "worker_warmup_s",
    "worker_rss_idle_mb",
    "worker_rss_after_mb",
    "caller_rss_mb",
)


def positive(value: Any) -> bool:
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    return number and math.isfinite(value) and value > 0


@pytest.mark.timeout(600)  # generous: a loaded shared machine can take several times as long
def test_quick_benchmark_reports_every_figure(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "server"))
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "run.py"), "--quick", "--json", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=590,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "cold/engine" in proc.stdout  # the table was printed

    report = json.loads(out.read_text(encoding="utf-8"))
    figures, ratios = report["figures"], report["ratios"]
    for name in TOP_FIGURES:
        assert positive(figures[name]), (name, figures[name])
    for model in MODELS:
        for mode in MODES:
            row = figures[model][mode]
            assert set(row) == set(ROW_FIGURES), (model, mode, row)
            for name in ROW_FIGURES:
                assert positive(row[name]), (model, mode, name, row[name])
            derived = ratios[model][mode]
            assert positive(derived["cold_over_engine"]), (model, mode, derived)
            # engine p50 - floor: a difference of two noisy medians, so only finite, not positive
            assert math.isfinite(derived["overhead_ms"]), (model, mode, derived)
