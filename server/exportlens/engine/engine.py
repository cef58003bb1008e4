"""Run jobs in the warm worker: supersede, time out, restart when it dies."""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..early_worker import PARALLEL
from ..worker.wire import protocol
from ..worker.wire.shared import WALL_CAP
from .daemon_client import DaemonWorker
from .daemon_paths import DaemonUnavailable
from .jobs import Job, JobOutcome
from .process import WorkerError, WorkerProcess

log = logging.getLogger("exportlens.engine")

# The worker enforces each job's timeout itself (up to WALL_CAP times it in wall time, for a child
# still computing on a busy machine: worker/core/time_limit.py); if it does not answer well after that,
# it is wedged and gets replaced.
WEDGED_GRACE = 20.0


@dataclass
class EngineOptions:
    python: str | None = None  # interpreter for the worker (needs torch); default: this one
    timeout: float = 30.0
    memory_mb: int | None = None
    parallel: int = PARALLEL
    spares: bool = True  # a warm spare child for the next job (the editor's; the CLI needs none)
    # Warm up before the first job (the CLI: its jobs come at once, all would run cold), not
    # between jobs (the editor: the file just opened is checked at once).
    warm_first: bool = False
    # Use the user's worker daemon for this interpreter, starting it if none runs (the CLI's
    # default; docs/daemon.md); it exits after `daemon_idle` s unused.
    daemon: bool = False
    daemon_idle: float = 600.0


class Engine:
    def __init__(self, options: EngineOptions | None = None) -> None:
        self.options = options or EngineOptions()
        self._worker: WorkerProcess | DaemonWorker | None = None
        self._starting: asyncio.Task[WorkerProcess | DaemonWorker] | None = None
        self._ids = itertools.count(1)
        self._latest: dict[tuple[Any, ...], int] = {}  # job key -> newest job id
        self.restarts = 0
        self.jobs_sent = 0  # jobs run (the status command's: a file that is not checked sends none)

    @property
    def info(self) -> dict[str, Any]:
        """What the worker said when it came up (its protocol.ReadyEvent): torch and python versions."""
        return dict(self._worker.info) if self._worker and self._worker.info else {}

    @property
    def daemon(self) -> tuple[int, int] | None:
        """The daemon used (its pid, and how many clients it had, this one included), or None."""
        worker = self._worker
        if isinstance(worker, DaemonWorker) and worker.daemon_pid is not None:
            return worker.daemon_pid, worker.daemon_clients
        return None

    @property
    def worker_pid(self) -> int | None:
        return self._worker.pid if self._worker is not None and self._worker.alive else None

    async def worker(self) -> WorkerProcess | DaemonWorker:
        if self._worker is not None and self._worker.alive:
            return self._worker
        if self._starting is None:
            self._starting = asyncio.create_task(self._start())
        try:
            return await asyncio.shield(self._starting)
        finally:
            if self._starting is not None and self._starting.done():
                self._starting = None

    async def _start(self) -> WorkerProcess | DaemonWorker:
        if self._worker is not None:
            self.restarts += 1
            await self._worker.kill()
        options = self.options
        if options.daemon:
            daemon = DaemonWorker(
                options.python, options.parallel, options.spares, options.warm_first, options.daemon_idle
            )
            try:
                await daemon.start()
            except DaemonUnavailable as exc:
                log.info("no worker daemon (%s): this run starts its own worker", exc)
            else:
                self._worker = daemon
                return daemon
        worker = WorkerProcess(options.python, options.parallel, options.spares, options.warm_first)
        await worker.start()
        self._worker = worker
        return worker

    async def run(self, job: Job, on_partial: Callable[[JobOutcome], None] | None = None) -> JobOutcome:
        """Run one job; a newer job with the same key cancels this one.

        `on_partial` gets a failed job's first failure as soon as the worker has it, before the
        search for its other failures (the returned outcome has them all)."""
        self.jobs_sent += 1
        job_id = next(self._ids)
        older = self._latest.get(job.key)
        self._latest[job.key] = job_id
        worker = await self.worker()
        if older is not None:
            worker.cancel(older)
        job.timeout = job.timeout or self.options.timeout
        if job.memory_mb is None:
            job.memory_mb = self.options.memory_mb
        relay = None if on_partial is None else _relay(on_partial)
        future = worker.submit(job.to_wire(job_id), relay)
        try:
            answer = await self._answer(worker, future, job.timeout * WALL_CAP + WEDGED_GRACE)
        except asyncio.TimeoutError:
            built = worker.built(job_id)
            await worker.kill()  # wedged: the next job starts a fresh one
            answer = {"status": "timeout", "seconds": job.timeout, "reason": "the worker stopped answering"}
            if built is not None:
                answer["tree"] = built
        except asyncio.CancelledError:
            if worker.alive:
                worker.cancel(job_id)
            raise
        finally:
            if self._latest.get(job.key) == job_id:
                del self._latest[job.key]
        return JobOutcome.from_wire(answer)

    @staticmethod
    async def _answer(
        worker: WorkerProcess | DaemonWorker, future: asyncio.Future[protocol.JobAnswer], silence: float
    ) -> protocol.JobAnswer:
        """The job's result; TimeoutError only when the worker said nothing at all for `silence`
        seconds. A job queued behind many others waits longer than its own timeout, but a
        healthy worker answers some job at least every timeout (each job is killed at its own)."""
        while True:
            try:
                return await asyncio.wait_for(asyncio.shield(future), silence)
            except asyncio.TimeoutError:
                if not worker.alive or time.monotonic() - worker.last_heard >= silence:
                    raise

    async def close(self) -> None:
        starting, self._starting = self._starting, None
        if starting is not None and not starting.done():
            starting.cancel()  # a worker still loading torch is killed, not left to finish
            await asyncio.wait([starting])
        if self._worker is not None:
            await self._worker.close()
            self._worker = None


def _relay(on_partial: Callable[[JobOutcome], None]) -> Callable[[protocol.JobAnswer], None]:
    return lambda answer: on_partial(JobOutcome.from_wire(answer))


__all__ = ["Engine", "EngineOptions", "WorkerError"]
