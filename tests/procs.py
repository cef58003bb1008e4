"""Processes as /proc shows them: what a test or benchmark checks was left behind.

A waiting spare job child (worker/host/spare.py) is the worker's own and is not a leftover; it is
told apart by its name.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from exportlens.worker.host.spare import IDLE_NAME


def processes() -> list[tuple[int, int, str, str]]:
    """(pid, ppid, state, name) of every process."""
    rows = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            name = stat[stat.index("(") + 1 : stat.rindex(")")]
            fields = stat[stat.rindex(")") + 2 :].split()
            rows.append((int(entry.name), int(fields[1]), fields[0], name))
    return rows


def descendants(root: int, spares: bool = False) -> list[tuple[int, str]]:
    """(pid, state) of every process under `root`; waiting spares only if `spares`."""
    rows = processes()
    found: list[tuple[int, str]] = []
    frontier = {root}
    while frontier:
        children = [(pid, state, name) for pid, ppid, state, name in rows if ppid in frontier]
        found += [(pid, state) for pid, state, name in children if spares or name != IDLE_NAME]
        frontier = {pid for pid, _, _ in children}
    return found


def alive(pid: int) -> bool:
    """Running (a zombie is not: whoever adopted it may never reap it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:200]
    except OSError:
        return "?"


async def leftovers(root: int, wait: float = 10.0) -> list[tuple[int, str]]:
    """What is still under `root` once children that were killed had `wait` seconds to go: a
    job's child is killed when its answer arrives and may take a moment to be gone."""
    deadline = time.monotonic() + wait
    while (found := descendants(root)) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return found


def cpu_ticks(pid: int) -> int | None:
    """The user + system CPU time a process has used, in clock ticks; None once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    return int(fields[11]) + int(fields[12])


async def until_a_child_idles(root: int, idle: float = 1.0, wait: float = 120.0) -> None:
    """Until a job's child under `root` has used no CPU for `idle` seconds: it is inside a sleep
    of the user's code, not still starting or tracing (a condition, where a fixed sleep guessed
    how long a loaded machine takes)."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        before = {pid: cpu_ticks(pid) for pid, _ in descendants(root)}
        await asyncio.sleep(idle)
        if any(ticks is not None and cpu_ticks(pid) == ticks for pid, ticks in before.items()):
            return
    raise AssertionError(f"no child of {root} went idle in {wait} s")
