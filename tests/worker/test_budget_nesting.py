"""worker/core/budget.py: a bound inside a bound (executorch's blame runs inside the runtime's bound)
ends no later than the outer one and leaves the outer one armed after it."""

from __future__ import annotations

import signal
import time

import pytest

from exportlens.worker.core.budget import Budget, OutOfBudget


def test_an_inner_bound_keeps_the_outer_one_armed() -> None:
    armed = signal.getitimer(signal.ITIMER_REAL)[0]  # pytest-timeout's own timer, when it runs one
    budget = Budget(60.0)
    with budget.bounded(share=0.5):
        outer = signal.getitimer(signal.ITIMER_REAL)[0]
        with budget.bounded(share=0.5):
            assert signal.getitimer(signal.ITIMER_REAL)[0] < outer
        left = signal.getitimer(signal.ITIMER_REAL)[0]
        assert 0 < left <= outer, (left, outer)  # before the fix: 0, the outer bound was gone
    assert (signal.getitimer(signal.ITIMER_REAL)[0] > 0) == (armed > 0)


def test_an_inner_bound_ends_no_later_than_the_outer_one() -> None:
    armed = signal.getitimer(signal.ITIMER_REAL)[0]
    budget = Budget(60.0)
    started = time.monotonic()
    with pytest.raises(OutOfBudget), budget.bounded(share=0.002):  # under a second
        with budget.bounded(share=1.0):  # a minute or more alone
            time.sleep(5)
    assert time.monotonic() - started < 2.0
    assert (signal.getitimer(signal.ITIMER_REAL)[0] > 0) == (armed > 0)
