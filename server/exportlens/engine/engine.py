"""Run jobs in the warm worker: supersede, time out, restart when it dies."""

from __future__ import annotations

import asyncio
import itertools
import logging
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import early_worker
from ..early_worker import PARALLEL, worker_argv, worker_flags
from ..worker.wire import protocol
from ..worker.wire.shared import SCALE_CAP, WALL_CAP
from .daemon_client import DaemonWorker
from .daemon_paths import DaemonUnavailable
from .jobs import Job, JobOutcome
from .process import WorkerError, WorkerProcess

log = logging.getLogger("exportlens.engine")

# The worker enforces each job's timeout itself (up to WALL_CAP times it in wall time, for a child
# still computing on a busy machine: worker/core/time_limit.py); if it does not answer well after that,
# it is wedged and gets replaced.
WEDGED_GRACE = 20.0
DAEMON_LATER_WAIT = 120.0  # s for the own worker's warm-up before the daemon is started anyway


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
    # ...and of those, only the tracers its jobs use (check/warm_tracers.py); (): all of them.
    # A daemon, which serves later runs too, always warms all of them.
    warm_tracers: tuple[str, ...] = ()
    # Use the user's worker daemon for this interpreter, starting it if none runs (the CLI's
    # default; docs/daemon.md); it exits after `daemon_idle` s unused.
    daemon: bool = False
    daemon_idle: float = 600.0
    # False: a daemon is used only if one runs; if none does, the engine starts its own worker
    # at once and, once that is warm, a daemon in the background for the next session (the
    # language server's: its first check must not wait for a new daemon's torch import).
    daemon_start: bool = True


class Engine:
    def __init__(self, options: EngineOptions | None = None) -> None:
        self.options = options or EngineOptions()
        self._worker: WorkerProcess | DaemonWorker | None = None
        self._starting: asyncio.Task[WorkerProcess | DaemonWorker] | None = None
        self._ids = itertools.count(1)
        self._latest: dict[tuple[Any, ...], int] = {}  # job key -> newest job id
        self.restarts = 0
        self.jobs_sent = 0  # jobs run (the status command's: a file that is not checked sends none)
        self._later: asyncio.Task[None] | None = None  # starts a daemon for later (daemon_start False)
        self._lookups: set[DaemonWorker] = set()  # daemon look-ups under way (close waits for them)

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
        worker = WorkerProcess(
            options.python, options.parallel, options.spares, options.warm_first, options.warm_tracers
        )
        # Without starting a daemon (the server's), its own worker starts meanwhile: with no
        # daemon running, the first check waits for nothing more than it did without daemons.
        own = None if not options.daemon or options.daemon_start else asyncio.create_task(worker.start())
        try:
            daemon = await self._daemon(may_start=options.daemon_start) if options.daemon else None
        except BaseException:  # cancelled (the engine closes): the worker it was starting goes too
            await _stop(own, worker)
            raise
        if daemon is not None and not self.options.daemon:  # turned off while it was looked for
            await daemon.close()  # (a server's first check can start before the client's settings)
            daemon = None
            own = own or asyncio.create_task(worker.start())
        if daemon is not None:
            await _stop(own, worker)
            python = options.python or sys.executable
            flags = worker_flags(options.parallel, options.spares, options.warm_first, options.warm_tracers)
            early_worker.discard_if(worker_argv(python), flags)  # the daemon is warm already
            self._worker = daemon
            return daemon
        await (own if own is not None else worker.start())
        self._worker = worker
        if options.daemon and not options.daemon_start and self._later is None:
            self._later = asyncio.create_task(self._start_daemon_later(worker))
        return worker

    async def _daemon(self, may_start: bool) -> DaemonWorker | None:
        """The daemon's connection, or None (logged: a worker of the engine's own is used)."""
        daemon = self._daemon_worker(may_start)
        self._lookups.add(daemon)  # until it answers: a cancelled one is waited for by close()
        try:
            await daemon.start()
        except (DaemonUnavailable, WorkerError, OSError) as exc:
            log.info("no worker daemon (%s): a worker of this engine's own is used", exc)
            return None
        else:
            return daemon
        finally:
            if not daemon.looking_up:
                self._lookups.discard(daemon)

    def _daemon_worker(self, may_start: bool) -> DaemonWorker:
        options = self.options
        return DaemonWorker(
            options.python,
            options.parallel,
            options.spares,
            options.warm_first,
            options.daemon_idle,
            may_start=may_start,
        )

    async def _start_daemon_later(self, worker: WorkerProcess) -> None:
        """Once this engine's own worker is warm (its import and warm-up no longer compete for
        the cores), start the daemon the next session will use; this one keeps its own worker."""
        deadline = time.monotonic() + DAEMON_LATER_WAIT
        while worker.alive and not worker.warm and time.monotonic() < deadline:
            await asyncio.sleep(0.5)
        if not worker.alive or not self.options.daemon:  # turned off meanwhile
            return
        daemon = await self._daemon(may_start=True)
        if daemon is not None:
            log.info("started the worker daemon (pid %s) for the next session", daemon.daemon_pid)
            await daemon.close()

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
            answer = await self._answer(worker, future, job.timeout * SCALE_CAP * WALL_CAP + WEDGED_GRACE)
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
        later, self._later = self._later, None
        if later is not None and not later.done():
            later.cancel()  # a daemon already spawned stays (it is detached), idle until it exits
            await asyncio.wait([later])
        starting, self._starting = self._starting, None
        if starting is not None and not starting.done():
            starting.cancel()  # a worker still loading torch is killed, not left to finish
            await asyncio.wait([starting])
        for lookup in list(self._lookups):  # a probe of the interpreter still running: it ends
            await lookup.settled()
        self._lookups.clear()
        if self._worker is not None:
            await self._worker.close()
            self._worker = None


async def _stop(starting: asyncio.Task[protocol.ReadyEvent] | None, worker: WorkerProcess) -> None:
    """A worker started for nothing: its start is cancelled (that kills it), then made sure of."""
    if starting is None:
        return
    starting.cancel()
    await asyncio.wait([starting])
    if not starting.cancelled():
        starting.exception()  # retrieved: a start that failed first is no error here
    await worker.kill()


def _relay(on_partial: Callable[[JobOutcome], None]) -> Callable[[protocol.JobAnswer], None]:
    return lambda answer: on_partial(JobOutcome.from_wire(answer))


__all__ = ["Engine", "EngineOptions", "WorkerError"]
