"""A long editing session through the real server (bench/soak.py): no diagnostics for an old
version, server RSS growth at most 10 % after warm-up, nothing left running at the end.

200 edits here; the long run: `EXPORTLENS_SOAK_EDITS=1000 PYTHONPATH=server python -m pytest
tests/reliability/test_soak.py -s` (or `python bench/soak.py`). Figures are printed (-s)."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

SOAK = Path(__file__).resolve().parents[2] / "bench" / "soak.py"
EDITS = int(os.environ.get("EXPORTLENS_SOAK_EDITS", "200"))


def load_soak():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("exportlens_bench_soak", SOAK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # runs bench/soak.py: nothing tests/slow.py can see starts its server
@pytest.mark.timeout(max(600, EDITS * 6))
async def test_soak(tmp_path: Path) -> None:
    soak = load_soak()
    figures = await soak.soak(
        EDITS, seed=int(os.environ.get("EXPORTLENS_SOAK_SEED", "0")), root=tmp_path.resolve()
    )
    print("\nsoak figures:", json.dumps(figures))
    assert figures["edits"] == EDITS
    assert figures["stale_publishes"] == 0, figures["stale_examples"]
    assert figures["sync_mismatches"] == 0, figures
    assert figures["sync_points"] >= EDITS // 10
    assert figures["rss_growth_pct"] <= 10.0, figures
    assert figures["left_behind"] == [], figures
    assert figures["alive_after_shutdown"] == [], figures
