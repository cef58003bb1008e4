"""Time budgets inside the child: the extra passes after a failure never cost the failure itself.

The worker stops a child when its time is up (time_limit.py: its wall time, or its CPU time on a
busy machine). The first failure is known once torch raised it, and the child has reported it;
locating a constraint violation's guards, searching for more failures, recording the parts'
inputs and lowering are extra passes. Each is planned from what the first export cost (`fits`:
one that would not finish in what is left is not started) and bounded to what is left minus a
reserve for writing the answer, so it ends with what it found instead of being stopped with it.
"""

from __future__ import annotations

import contextlib
import signal
import time
from collections.abc import Iterator

from ..wire.shared import PASSES_SHARE, SCALE_CAP
from .time_limit import Clock, now_cpu

RESERVE = 1.5  # seconds kept for describing and writing the answer


class OutOfBudget(BaseException):  # a BaseException: user code catching Exception lets it through
    """The pass ran out of its time; raised from a timer signal into whatever torch was doing."""


class Budget:
    def __init__(
        self, timeout: float, wall_start: float | None = None, cpu_start: float | None = None
    ) -> None:
        self.clock = Clock(
            timeout,
            time.monotonic() if wall_start is None else wall_start,
            now_cpu() if cpu_start is None else cpu_start,
        )
        self.export_seconds = 0.0  # what the first export took, once measured (`measure`)
        self.limit_set = timeout  # the job's own limit: what `scaled` grows from

    def left(self) -> float:
        """Wall seconds this child can still use before the worker stops it, minus the reserve."""
        return self.clock.left(time.monotonic(), now_cpu() - (self.clock.cpu_start or 0.0), RESERVE)

    @contextlib.contextmanager
    def measure(self) -> Iterator[None]:
        """Time the first export: the passes after it cost about as much each (wall time, as
        `left`: both stretch alike when the machine is busy)."""
        started = time.monotonic()
        try:
            yield
        finally:
            self.export_seconds = time.monotonic() - started

    def scaled(self) -> float | None:
        """Grow the limit to fit this module, once its first export has answered: the passes after
        it (its line, its parts, the search, the lowerings) get PASSES_SHARE times that export's
        cost from now, up to SCALE_CAP times the limit set; the new limit when it grew (the worker
        must apply it too), else None. A slow model's passes are then not cut by a limit sized for
        a fast one, and a fast model's keep what its limit leaves."""
        used = time.monotonic() - self.clock.wall_start
        wanted = min(used + PASSES_SHARE * self.export_seconds, SCALE_CAP * self.limit_set)
        if wanted <= self.clock.timeout:
            return None
        self.clock.timeout = wanted
        return wanted

    def fits(self, exports: float = 1.0) -> bool:
        """Whether a pass of about `exports` times the first export's cost can finish in what is left."""
        return self.left() > exports * self.export_seconds

    @contextlib.contextmanager
    def bounded(self, share: float = 1.0) -> Iterator[None]:
        """Run the block for at most `share` of the time left; OutOfBudget when it is over. Nested in
        another bound, it ends no later than that one, and gives the outer bound back what it has left."""
        seconds = self.left() * share
        outer, _ = signal.getitimer(signal.ITIMER_REAL)
        if outer > 0:
            seconds = min(seconds, outer)
        if seconds <= 0:
            raise OutOfBudget
        started = time.monotonic()
        previous = signal.signal(signal.SIGALRM, _expire)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            if outer > 0:  # the outer bound goes on (at least a tick: its own expiry raises there)
                signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - started), 0.001))


def _expire(signum: int, frame: object) -> None:
    raise OutOfBudget
