"""When a job has had its time: `timeout` seconds, of CPU when the machine is busy.

A wall-clock limit alone makes a check's verdict depend on the machine's load: on two cores shared
with other work, a Swin-T whose strict export costs 14 s of CPU took 40 s of wall time and was cut
at 30 s on one run, not on another. So a child still computing when its wall time is up runs on
until it has used `timeout` s of CPU (up to `WALL_CAP` times the limit in wall time); one that waits
(a sleep, a lock, a hang, a compiler it started) is stopped at the limit, as before. The worker
applies the rule (`Clock.expired`); the child sizes its extra passes by it (`Clock.left`), so
they end before the worker would stop it. Stdlib only: the worker's and the child's.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..wire.shared import WALL_CAP

IDLE_SHARE = 0.05  # below this much CPU per second of wall time since the last look, a child waits
RECHECK = 1.0  # seconds between two looks at a child past its wall time

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds(pid: int) -> float | None:
    """The CPU time (user + system, its reaped children's too) of a live process; None without /proc."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            text = handle.read()
    except OSError:
        return None
    # pid (comm) state ...: comm may hold spaces and parentheses; fields 14-17 are the times
    fields = text[text.rfind(b")") + 2 :].split()
    try:
        return sum(int(fields[i]) for i in range(11, 15)) / _TICK
    except (IndexError, ValueError):
        return None


@dataclass
class Clock:
    """A job's time: the wall clock and CPU time it started at (a spare's warm-up is not its)."""

    timeout: float
    wall_start: float
    cpu_start: float | None  # None: CPU time is not known here (no /proc): wall time only
    last: tuple[float, float] = field(default=(0.0, 0.0))  # (wall, cpu) at the previous look

    def __post_init__(self) -> None:
        self.last = (self.wall_start, self.cpu_start or 0.0)

    def expired(self, now: float, cpu: float | None) -> bool:
        """Whether a child past its wall time (`now`, with `cpu` used since it started) is done."""
        wall_used = now - self.wall_start
        if wall_used < self.timeout:
            return False
        if cpu is None or self.cpu_start is None or wall_used >= self.timeout * WALL_CAP:
            return True
        cpu_used = cpu - self.cpu_start
        last_wall, last_cpu = self.last
        self.last = (now, cpu)
        busy = (cpu - last_cpu) >= IDLE_SHARE * max(now - last_wall, 1e-3)
        return cpu_used >= self.timeout or not busy

    def left(self, now: float, cpu_used: float, reserve: float) -> float:
        """Wall seconds a busy child can count on before `expired`, minus `reserve` (its CPU share so
        far decides how fast its CPU time catches up with the limit)."""
        wall_used = now - self.wall_start
        share = max(cpu_used / max(wall_used, 1e-3), IDLE_SHARE * 2)
        until_cpu = (self.timeout - cpu_used) / share
        until = max(self.timeout - wall_used, min(until_cpu, self.timeout * WALL_CAP - wall_used))
        return until - reserve


def now_cpu() -> float:
    """This process's CPU time, as `cpu_seconds` counts it for another."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system
