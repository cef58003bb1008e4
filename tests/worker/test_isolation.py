"""User code that hangs, crashes, prints or exits: findings, never an engine crash."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from exportlens.check import CheckOptions, check_file
from exportlens.engine import Engine, EngineOptions
from exportlens.engine.process import WorkerProcess
from tests.conftest import check, line_of, only
from tests.procs import alive, descendants, leftovers

CLEAN = """
import torch

class Clean(torch.nn.Module):
    def forward(self, x):
        return x * 2

    def example_inputs(self):
        return (torch.ones(3),)
"""


async def assert_clean_check_still_works(engine: Engine, write) -> None:
    result = await check(engine, write("after.py", CLEAN))
    assert [m.status for m in result.modules] == ["exported"], [
        (d.code, d.message, result.modules[0].timings) for d in result.diagnostics
    ]


async def test_hanging_forward_times_out(write) -> None:
    engine = Engine(EngineOptions(timeout=3.0))
    try:
        path = write(
            "hang.py",
            """
            import torch

            class Hangs(torch.nn.Module):
                def forward(self, x):
                    while True:
                        pass

                def example_inputs(self):
                    return (torch.ones(2),)
        """,
        )
        result = await check(engine, path)
        finding = only(result, "export-timeout")
        # The check ran out of time: not known to fail, so a warning that says so.
        assert finding.severity == "warning"
        assert "ran out of time" in finding.message and "not an export failure" in finding.message
        line = line_of(path, "class Hangs")
        assert (finding.range.start.line, finding.range.start.character) == (line, 6)
        assert (finding.range.end.line, finding.range.end.character) == (line, 11)
        assert [m.status for m in result.modules] == ["timeout"]
        await assert_clean_check_still_works(engine, write)
        worker = await engine.worker()
        assert worker.pid is not None and await leftovers(worker.pid) == []
    finally:
        await engine.close()


async def test_segfault_becomes_a_finding(engine: Engine, write) -> None:
    path = write(
        "segv.py",
        """
        import ctypes
        import torch

        class Crashes(torch.nn.Module):
            def forward(self, x):
                ctypes.string_at(0)
                return x

            def example_inputs(self):
                return (torch.ones(2),)
    """,
    )
    result = await check(engine, path)
    finding = only(result, "worker-crashed")
    assert "killed by SIGSEGV while exporting `Crashes`" in finding.message
    line = line_of(path, "class Crashes")
    start, end = finding.range.start, finding.range.end
    assert (start.line, start.character, end.character) == (line, 6, 13)
    await assert_clean_check_still_works(engine, write)
    worker = await engine.worker()
    assert worker.pid is not None
    assert [state for _, state in await leftovers(worker.pid)] == []  # no zombies


async def test_os_exit_and_sys_exit(engine: Engine, write) -> None:
    path = write(
        "exits.py",
        """
        import os
        import sys
        import torch

        class HardExit(torch.nn.Module):
            def forward(self, x):
                os._exit(7)

            def example_inputs(self):
                return (torch.ones(2),)

        class SoftExit(torch.nn.Module):
            def forward(self, x):
                sys.exit(3)

            def example_inputs(self):
                return (torch.ones(2),)
    """,
    )
    result = await check(engine, path)
    statuses = {m.name: m.status for m in result.modules}
    assert statuses == {"HardExit": "crashed", "SoftExit": "failed"}
    hard = only(result, "worker-crashed")
    assert "exited with status 7" in hard.message
    assert hard.range.start.line == line_of(path, "class HardExit")
    soft = [d for d in result.diagnostics if d.module == "SoftExit"]
    assert len(soft) == 1 and soft[0].severity == "error"
    assert soft[0].range.start.line in (line_of(path, "sys.exit(3)"), line_of(path, "class SoftExit"))


async def test_ten_megabytes_of_prints_are_captured_not_leaked(engine: Engine, write, capfd) -> None:
    path = write(
        "noisy.py",
        """
        import sys
        import torch

        class Noisy(torch.nn.Module):
            def forward(self, x):
                sys.stdout.write("x" * (10 * 1024 * 1024))
                sys.stdout.flush()
                print("to stderr", file=sys.stderr)
                return x + 1

            def example_inputs(self):
                return (torch.ones(2),)
    """,
    )
    job_result = await check(engine, path)
    assert [m.status for m in job_result.modules] == ["exported"]
    captured = capfd.readouterr()
    assert "xxxx" not in captured.out and "xxxx" not in captured.err


async def test_two_modules_one_fails(engine: Engine, write) -> None:
    path = write(
        "two.py",
        """
        import torch

        class Good(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(8, 2)

            def forward(self, x):
                return self.fc(x)

        class Bad(torch.nn.Module):
            def forward(self, x):
                if x.sum() > 0:
                    return x
                return -x

            def example_inputs(self):
                return (torch.ones(4),)
    """,
    )
    result = await check(engine, path)
    assert {m.name: m.status for m in result.modules} == {"Good": "exported", "Bad": "failed"}
    errors = [d for d in result.diagnostics if d.severity == "error"]
    assert errors and all(d.module == "Bad" for d in errors)
    assert errors[0].range.start.line == line_of(path, "if x.sum() > 0")


async def test_buffer_text_wins_over_disk(engine: Engine, write) -> None:
    path = write("buffer.py", CLEAN)
    buffer = CLEAN.replace("return x * 2", "if x.max() > 1:\n            return x\n        return x * 2")
    result = await check(engine, path, source=buffer)
    assert [m.status for m in result.modules] == ["failed"]
    error = next(d for d in result.diagnostics if d.severity == "error")
    buffer_line = next(i for i, line in enumerate(buffer.splitlines()) if "if x.max() > 1" in line)
    assert error.range.start.line == buffer_line
    assert "if x.max()" not in Path(path).read_text()
    on_disk = await check(engine, path)
    assert [m.status for m in on_disk.modules] == ["exported"]


async def test_killing_the_worker_restarts_it(write) -> None:
    engine = Engine(EngineOptions(timeout=30.0))
    try:
        path = write(
            "killer.py",
            """
            import os
            import signal
            import torch

            class Killer(torch.nn.Module):
                def forward(self, x):
                    os.kill(os.getppid(), signal.SIGKILL)
                    return x

                def example_inputs(self):
                    return (torch.ones(2),)
        """,
        )
        first = await engine.worker()
        result = await check(engine, path)
        assert [m.status for m in result.modules] == ["crashed"]
        only(result, "worker-crashed")
        await assert_clean_check_still_works(engine, write)
        second = await engine.worker()
        assert second is not first and second.alive and engine.restarts == 1
    finally:
        await engine.close()


async def test_newer_job_cancels_older_one(engine: Engine, write) -> None:
    path = write(
        "slow.py",
        """
        import time
        import torch

        class Slow(torch.nn.Module):
            def forward(self, x):
                time.sleep(20)
                return x

            def example_inputs(self):
                return (torch.ones(2),)
    """,
    )
    options = CheckOptions(roots=[str(Path(path).parent)])
    older = asyncio.create_task(check_file(engine, path, None, options))
    await asyncio.sleep(1.0)
    newer = await check_file(engine, path, CLEAN.replace("Clean", "Slow"), options)
    assert [m.status for m in newer.modules] == ["exported"]
    assert [m.status for m in (await older).modules] == ["cancelled"]


async def test_memory_limit_is_a_finding_not_a_crash(write) -> None:
    engine = Engine(EngineOptions(timeout=30.0, memory_mb=512))
    try:
        path = write(
            "hog.py",
            """
            import torch

            class Hog(torch.nn.Module):
                def forward(self, x):
                    return x + 1

                def example_inputs(self):
                    # Real memory (forward only sees fake tensors in non-strict mode).
                    return (torch.ones(8 * 1024 * 1024 * 1024, dtype=torch.uint8),)
        """,
        )
        result = await check(engine, path, mode="non-strict")
        assert result.modules[0].status in ("failed", "crashed")
        assert any(d.severity == "error" for d in result.diagnostics)
        await assert_clean_check_still_works(engine, write)
    finally:
        await engine.close()
    assert os.getpid()  # the test process itself is alive and well


async def test_spawn_fallback_where_fork_is_unavailable(write, monkeypatch) -> None:
    monkeypatch.setenv("EXPORTLENS_START", "spawn")
    engine = Engine(EngineOptions(timeout=120.0))
    try:
        result = await check(engine, write("spawned.py", CLEAN))
        assert [m.status for m in result.modules] == ["exported"]
    finally:
        await engine.close()


async def waiting_spare(worker_pid: int) -> int:
    """The pid of the worker's spare once it is warm and blocked waiting for a job."""

    async def poll() -> int:
        while True:
            spares = [p for p, s in descendants(worker_pid, spares=True) if s == "S"]
            if spares and descendants(worker_pid) == []:
                (pid,) = spares
                return pid
            await asyncio.sleep(0.05)

    return await asyncio.wait_for(poll(), 60)


async def test_a_warm_spare_runs_the_next_job_and_is_replaced(engine: Engine, write) -> None:
    path = write("spared.py", CLEAN)
    assert [m.status for m in (await check(engine, path)).modules] == ["exported"]
    worker = await engine.worker()
    assert worker.pid is not None
    spare = await waiting_spare(worker.pid)
    result = await check(engine, path)
    assert [m.status for m in result.modules] == ["exported"]
    assert await leftovers(worker.pid) == [] and not alive(spare)  # it ran the job and is gone
    assert await waiting_spare(worker.pid) != spare  # a fresh one for the next job


async def test_a_spare_killed_while_waiting_is_not_used(engine: Engine, write) -> None:
    path = write("spare_killed.py", CLEAN)
    await check(engine, path)
    worker = await engine.worker()
    assert worker.pid is not None
    os.kill(await waiting_spare(worker.pid), signal.SIGKILL)
    result = await check(engine, path)
    assert [m.status for m in result.modules] == ["exported"]
    assert await leftovers(worker.pid) == []


async def test_no_spare_when_switched_off(write, monkeypatch) -> None:
    monkeypatch.setenv("EXPORTLENS_SPARE", "0")
    engine = Engine(EngineOptions(timeout=60.0))
    try:
        assert [m.status for m in (await check(engine, write("unspared.py", CLEAN))).modules] == ["exported"]
        worker = await engine.worker()
        assert worker.pid is not None
        # a spare would have been forked once the deferred warm-up is done and the worker quiet
        await asyncio.wait_for(until_warm(worker), 180)
        await asyncio.sleep(1.0)
        assert await leftovers(worker.pid) == [] and descendants(worker.pid, spares=True) == []
    finally:
        await engine.close()


async def until_warm(worker: WorkerProcess) -> None:
    while not worker.warm:
        await asyncio.sleep(0.05)
