"""Time budgets inside the child: the extra passes after a failure never cost the failure itself.

The worker kills a child at its job's timeout. The first failure is known once torch raised it;
locating a constraint violation's guards and searching for more failures are extra passes, each
bounded here to what is left before that deadline minus a reserve for writing the answer, so they
end with what they found instead of being killed with it.
"""

from __future__ import annotations

import contextlib
import signal
import time
from collections.abc import Iterator

RESERVE = 1.5  # seconds kept for describing and writing the answer


class OutOfBudget(BaseException):  # a BaseException: user code catching Exception lets it through
    """The pass ran out of its time; raised from a timer signal into whatever torch was doing."""


class Budget:
    def __init__(self, deadline: float) -> None:
        self.deadline = deadline  # time.monotonic() at which the worker kills this child

    def left(self) -> float:
        return self.deadline - RESERVE - time.monotonic()

    @contextlib.contextmanager
    def bounded(self, share: float = 1.0) -> Iterator[None]:
        """Run the block for at most `share` of the time left; OutOfBudget when it is over."""
        seconds = self.left() * share
        if seconds <= 0:
            raise OutOfBudget
        previous = signal.signal(signal.SIGALRM, _expire)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


def _expire(signum: int, frame: object) -> None:
    raise OutOfBudget
