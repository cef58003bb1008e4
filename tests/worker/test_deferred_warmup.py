"""The worker takes jobs before its warm-up is done, and forks spares only when the user pauses.

- A fresh worker runs its first job at once, in a child forked before the warm-up (the warm-up
  runs between jobs, worker/host/warmup.py): that job's findings are those of a warm worker's.
- A spare child is forked only after a quiet interval with no new job (worker/host/spare.py QUIET):
  none while jobs come faster than that, even with the worker idle between them, one once they
  stop; none at all with spares off (the CLI's engine, which warms up before its first job).
  The worker says on stderr when it forks one; WorkerProcess counts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from exportlens.engine import Engine, EngineOptions
from exportlens.engine.process import WorkerProcess
from exportlens.worker.host.spare import QUIET
from tests.conftest import check

BRANCH = """
import torch

class Branch(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(8, 8)

    def forward(self, x):
        y = self.linear(x)
        if y.sum() > 0:
            return y * 2
        return y

    def example_inputs(self):
        return (torch.randn(4, 8),)
"""

QUICK = """
import torch

class Quick(torch.nn.Module):
    def forward(self, x):
        return x + {n}

    def example_inputs(self):
        return (torch.ones(3),)
"""


async def until(condition: Callable[[], bool], timeout: float = 180.0) -> None:
    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.05)

    await asyncio.wait_for(poll(), timeout)


def seen(result) -> list[tuple[str, int, str]]:  # type: ignore[no-untyped-def]
    return [(d.code, d.range.start.line, d.message) for d in result.diagnostics]


async def warm_worker(engine: Engine) -> WorkerProcess:
    worker = await engine.worker()
    await until(lambda: worker.warm)
    return worker


async def test_first_job_runs_before_the_warm_up_with_the_same_findings(write) -> None:  # type: ignore[no-untyped-def]
    engine = Engine(EngineOptions(timeout=120.0))
    try:
        path = write("branch.py", BRANCH)
        cold = await check(engine, path)
        worker = await engine.worker()
        assert not worker.warm  # answered by a child forked before any warm-up step
        assert [d.code for d in cold.diagnostics] == ["data-dependent-branch"], seen(cold)
        await until(lambda: worker.warm)  # the warm-up ran after, while the worker was idle
        assert seen(await check(engine, path)) == seen(cold)
    finally:
        await engine.close()


async def test_no_spare_is_forked_while_jobs_keep_coming(write, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    quiet = 2.0  # longer than the default: each quick job ends well before the next edit comes
    monkeypatch.setenv("EXPORTLENS_SPARE_QUIET", str(quiet))
    engine = Engine(EngineOptions(timeout=60.0))
    try:
        path = write("quick.py", QUICK.format(n=0))
        await check(engine, path)
        worker = await warm_worker(engine)
        await until(lambda: worker.spares_forked == 1)  # idle and quiet: one spare waits
        edits = []
        for n in range(5):  # an edit every 1 s (< quiet): the worker is idle between them
            edits.append(asyncio.create_task(check(engine, path, source=QUICK.format(n=n))))
            await asyncio.sleep(quiet / 2)
        await asyncio.gather(*edits)
        during = worker.spares_forked
        await asyncio.sleep(quiet + 1.5)  # the pause after the burst: a spare for the next edit
        assert (during, worker.spares_forked) == (1, 2)
    finally:
        await engine.close()


async def test_the_clis_engine_warms_up_first_and_forks_no_spare(write) -> None:  # type: ignore[no-untyped-def]
    engine = Engine(EngineOptions(timeout=60.0, spares=False, warm_first=True))  # as the CLI's
    try:
        worker = await engine.worker()
        await until(lambda: worker.warm, 10.0)  # said before "ready": its jobs all come at once
        assert worker.warm_line.endswith(": non-strict, strict"), worker.warm_line
        await check(engine, write("unspared.py", QUICK.format(n=1)))
        await asyncio.sleep(QUIET + 1.5)  # a spare would have been forked by now
        assert worker.spares_forked == 0
    finally:
        await engine.close()


async def test_the_clis_engine_warms_only_the_tracers_its_jobs_use(write) -> None:  # type: ignore[no-untyped-def]
    """A non-strict run does not wait for dynamo's warm-up (~3 s of its ~5 s) before its first job."""
    options = EngineOptions(timeout=60.0, spares=False, warm_first=True, warm_tracers=("non-strict",))
    engine = Engine(options)
    try:
        worker = await engine.worker()
        await until(lambda: worker.warm, 10.0)
        assert worker.warm_line.endswith(": non-strict"), worker.warm_line
        result = await check(engine, write("branch_warm.py", BRANCH))
        assert [d.code for d in result.diagnostics] == ["data-dependent-branch"], seen(result)
    finally:
        await engine.close()
