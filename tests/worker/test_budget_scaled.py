"""worker/core/budget.py `Budget.scaled`: the job's limit grows to fit a slow module's passes, never
shrinks for a fast one, and never passes SCALE_CAP times the limit set however often it is asked."""

from __future__ import annotations

import time

from exportlens.worker.core.budget import Budget
from exportlens.worker.wire.shared import PASSES_SHARE, SCALE_CAP


def test_a_fast_export_keeps_its_limit() -> None:
    budget = Budget(30.0, wall_start=time.monotonic() - 2.0)
    budget.export_seconds = 1.5
    assert budget.scaled() is None and budget.clock.timeout == 30.0


def test_a_slow_export_gets_its_share_after_it() -> None:
    budget = Budget(10.0, wall_start=time.monotonic() - 6.0)
    budget.export_seconds = 5.0
    grown = budget.scaled()
    assert grown is not None and budget.clock.timeout == grown
    assert 6.0 + PASSES_SHARE * 5.0 <= grown < 6.5 + PASSES_SHARE * 5.0 or grown == SCALE_CAP * 10.0


def test_the_growth_is_capped_once_and_for_all() -> None:
    budget = Budget(10.0, wall_start=time.monotonic() - 9.0)
    budget.export_seconds = 8.5
    assert budget.scaled() == SCALE_CAP * 10.0
    budget.export_seconds = 30.0  # asked again after a later, longer export: still the cap
    assert budget.scaled() is None and budget.clock.timeout == SCALE_CAP * 10.0
