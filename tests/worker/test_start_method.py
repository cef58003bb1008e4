"""How a job's child starts: forked on Linux, spawned (a fresh interpreter) on macOS.

macOS cannot run here, so its path is proven on Linux: the choice by platform is a pure function,
and the spawn path it picks runs real jobs (a refusal on its line, a clean module, a hang killed
at its time limit with nothing left behind) when EXPORTLENS_START=spawn selects it.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from exportlens.engine import Engine, EngineOptions
from exportlens.worker.host.children import start_method
from tests.conftest import check, line_of, only
from tests.procs import descendants, leftovers


def test_linux_forks_macos_spawns() -> None:
    assert start_method("linux") == "fork"
    assert start_method("darwin") == "spawn"


def test_exportlens_start_overrides_the_platform() -> None:
    assert start_method("linux", chosen="spawn") == "spawn"
    assert start_method("darwin", chosen="fork") == "fork"
    assert start_method("darwin", chosen="forkserver") == "spawn", "an unknown value: the platform's"


def test_this_machine_forks() -> None:
    # The suites' figures and the spare child (spare.py) assume it: Linux, with os.fork.
    assert hasattr(os, "fork") and start_method() == "fork"


SPAWNED = """
import torch

class Clean(torch.nn.Module):
    def forward(self, x):
        return x * 2

    def example_inputs(self):
        return (torch.ones(3),)


class Guarded(torch.nn.Module):
    def forward(self, x):
        if (x < 0).any():
            return -x
        return x

    def example_inputs(self):
        return (torch.randn(4),)


class Hangs(torch.nn.Module):
    def forward(self, x):
        while True:
            pass

    def example_inputs(self):
        return (torch.ones(2),)
"""


async def spawned_children(worker_pid: int) -> list[int]:
    """The worker's children that run worker/job/spawned.py (a fresh interpreter), once there are any."""
    while True:
        found = []
        for pid, _ in descendants(worker_pid):
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"job.spawned" in argv:
                found.append(pid)
        if found:
            return found
        await asyncio.sleep(0.1)


async def test_spawned_children_export_refuse_and_time_out(write, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXPORTLENS_START", "spawn")
    # Each spawned child imports torch cold (seconds on a busy machine): a generous limit.
    engine = Engine(EngineOptions(timeout=45.0, parallel=3))
    try:
        path = write("spawned.py", SPAWNED)
        worker = await engine.worker()
        assert worker.pid is not None
        checking = asyncio.ensure_future(check(engine, path, mode="non-strict"))
        assert await asyncio.wait_for(spawned_children(worker.pid), 60), "jobs run in spawned children"
        result = await checking
        assert await leftovers(worker.pid) == [], "the hang's child was killed with its group"
    finally:
        await engine.close()
    status = {m.name: m.status for m in result.modules}
    assert status == {"Clean": "exported", "Guarded": "failed", "Hangs": "timeout"}, status
    refusal = only(result, "data-dependent-branch")
    assert refusal.range.start.line == line_of(path, "if (x < 0).any()")
    assert only(result, "export-timeout").module == "Hangs"
