"""The worker as seen from the engine: start it, talk to it, restart it.

The worker's code is loaded by file location under a private package name,
so the user's interpreter needs torch and nothing of ours: none of the
engine's dependencies (pygls, ...) ever land on its `sys.path`.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import early_worker
from ..early_worker import worker_argv, worker_flags
from ..worker.wire import protocol
from ..worker.wire.records import ModuleTree
from ..worker.wire.shared import FORKED_LINE, WARM_LINE
from .in_flight import JobsInFlight

log = logging.getLogger("exportlens.worker")

STREAM_LIMIT = 64 * 1024 * 1024  # one line per answer: a big summary is one long line
STARTUP_TIMEOUT = 180.0
# When its stdin closes the worker kills its jobs and exits (tens of ms); one still there after
# this is killed (its children die with it): closing never holds a client's shutdown up long.
CLOSE_GRACE = 2.0


# The oldest torch ExportLens is tested on (tools/versions.mk): older ones raise other exceptions
# with other texts, and a diagnosis that guesses would be a wrong squiggle.
MIN_TORCH = (2, 10)


def torch_too_old(version: object) -> str | None:
    """Why the worker's torch (its reported version) cannot export, or None."""
    if not isinstance(version, str):
        return None
    parts = [int(p) for p in version.split("+")[0].split(".")[:2] if p.isdigit()]
    if len(parts) == 2 and tuple(parts) < MIN_TORCH:
        oldest = ".".join(map(str, MIN_TORCH))
        return (
            f"torch {version} is too old: ExportLens supports torch >= {oldest}, the oldest it is tested"
            f" on (older versions report export failures differently); upgrade torch in this"
            f" interpreter (pip install 'torch>={oldest}') or choose another one"
            " (`exportlens.interpreter`, `--python`)"
        )
    return None


def shadowed(origin: object) -> str:
    """A hint when what `import torch` found is not an installed torch package."""
    if not isinstance(origin, str):
        return ""
    parts = Path(origin).parts
    if origin.endswith("__init__.py") and ("site-packages" in parts or "dist-packages" in parts):
        return ""
    if origin.endswith("torch.py"):
        return f"; `import torch` loads {origin}, which shadows the torch package: rename it or fix sys.path"
    return f"; `import torch` loads {origin}: if that is not the torch package, it shadows it"


class WorkerError(RuntimeError):
    """The worker could not start (no torch, bad interpreter, ...)."""


class WorkerProcess:
    def __init__(
        self,
        python: str | None = None,
        parallel: int = 2,
        spares: bool = True,
        warm_first: bool = False,
        warm_tracers: tuple[str, ...] = (),
    ) -> None:
        self.python = python or sys.executable
        self.parallel = parallel
        self.spares = spares  # False: the worker forks no spare child (the CLI: one child per job)
        self.warm_first = warm_first  # True: it warms up before its first job (the CLI's many jobs)
        self.warm_tracers = warm_tracers  # ...only the tracers its jobs use ("": all of them)
        # What the worker says on stderr about itself: its deferred warm-up is done, spares forked.
        self.warm = False
        self.warm_line = ""  # what it said: how long, which tracers
        self.spares_forked = 0
        self.info: protocol.ReadyEvent | None = None
        self._proc: asyncio.subprocess.Process | _Adopted | None = None
        self._jobs = JobsInFlight()
        self._tasks: list[asyncio.Task[None]] = []
        self._stderr_tail: collections.deque[str] = collections.deque(maxlen=40)
        # Set when the worker's stdout ends: it is dead even before asyncio has reaped it and
        # set `returncode`, so no job may be sent to it (its answer would never come).
        self._stdout_closed = False
        self.last_heard = time.monotonic()  # when the worker last sent anything (see Engine.run)

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.returncode is None and not self._stdout_closed

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    async def start(self) -> protocol.ReadyEvent:
        argv, flags = (
            worker_argv(self.python),
            worker_flags(self.parallel, self.spares, self.warm_first, self.warm_tracers),
        )
        early = early_worker.take(argv, flags)
        try:
            if early is not None:  # started before the server's imports (early_worker.py)
                self._proc = await _adopted(early)
                log.info("the worker started with the server (pid %d) is the engine's", early.pid)
            else:
                self._proc = await asyncio.create_subprocess_exec(
                    *argv,
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                    env={**os.environ, **flags},
                    limit=STREAM_LIMIT,
                )
        except OSError as exc:
            raise WorkerError(f"cannot start the worker with {self.python}: {exc}") from exc
        assert self._proc.stdout and self._proc.stderr
        self._tasks = [asyncio.create_task(self._drain_stderr(self._proc.stderr))]
        try:
            first = await asyncio.wait_for(self._proc.stdout.readline(), STARTUP_TIMEOUT)
        except asyncio.TimeoutError:
            await self.kill()
            raise WorkerError(
                f"the worker ({self.python}) did not start in {STARTUP_TIMEOUT:.0f} s"
            ) from None
        except asyncio.CancelledError:  # the engine closed while torch was still loading
            await self.kill()
            raise
        message, problem = self._first_message(first)
        if message is None:
            await self.kill()
            raise WorkerError(problem)
        self.info = message
        self._tasks.append(asyncio.create_task(self._read_results(self._proc.stdout)))
        return message

    def _first_message(self, line: bytes) -> tuple[protocol.ReadyEvent | None, str]:
        """The worker's "ready", or why it is not ready."""
        try:
            message = protocol.decode_from_worker(line) if line.strip() else None
        except protocol.ProtocolError as exc:
            return None, f"the worker ({self.python}) could not start: {exc}"
        ready = message if message is not None and message["event"] == "ready" else None
        fatal = message if message is not None and message["event"] == "fatal" else None
        too_old = torch_too_old(ready["torch"] if ready else fatal["torch"] if fatal else None)
        if too_old:
            return None, f"{too_old} ({self.python})"
        if ready is not None:
            return ready, ""
        detail = (fatal["message"] if fatal else "") or "\n".join(self._stderr_tail) or "it exited"
        detail += shadowed(fatal["torch_origin"] if fatal else None)
        return None, f"the worker ({self.python}) could not start: {detail}"

    async def _read_results(self, stream: asyncio.StreamReader) -> None:
        while line := await stream.readline():
            self.last_heard = time.monotonic()
            try:
                message = protocol.decode_from_worker(line)
            except protocol.ProtocolError:
                log.exception("a line from the worker is not a message: ignored")
                continue
            if message["event"] == "partial":
                self._jobs.partial(message)
            elif message["event"] == "result":
                self._jobs.result(message)
        self._stdout_closed = True
        self._jobs.fail_all("the export worker exited")

    async def _drain_stderr(self, stream: asyncio.StreamReader) -> None:
        while line := await stream.readline():
            text = line.decode("utf-8", errors="replace").rstrip()
            if text.startswith(WARM_LINE):
                self.warm, self.warm_line = True, text
            elif text == FORKED_LINE:
                self.spares_forked += 1
            self._stderr_tail.append(text)
            log.debug("%s", text)

    def send(self, message: protocol.ToWorker) -> None:
        if not self.alive or self._proc is None or self._proc.stdin is None:
            raise WorkerError("the worker is not running")
        self._proc.stdin.write(protocol.encode(message))

    def submit(
        self, wire_job: protocol.JobMessage, on_partial: Callable[[protocol.JobAnswer], None] | None = None
    ) -> asyncio.Future[protocol.JobAnswer]:
        """Send a job; `on_partial` gets its early reports (a failure's first finding)."""
        future = self._jobs.add(wire_job["id"], on_partial)
        self.send({"op": "job", "job": wire_job})
        return future

    def built(self, job_id: int) -> ModuleTree | None:
        """What a running job exports, once its child has built it."""
        return self._jobs.built(job_id)

    def cancel(self, job_id: int) -> None:
        self._jobs.unlisten(job_id)
        if self.alive:
            self.send({"op": "cancel", "id": job_id})

    async def kill(self) -> None:
        """Stop the worker; its children die with it (PDEATHSIG), none is left a zombie."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.returncode is None:
            try:
                proc.kill()
            except ProcessLookupError:
                pass
        if proc is not None:
            await proc.wait()
        for task in self._tasks:
            task.cancel()
        self._tasks = []
        self._jobs.fail_all("the export worker was stopped")

    async def close(self) -> None:
        """Graceful: close stdin (the worker finishes up and exits), then make sure."""
        if self._proc is not None and self._proc.stdin is not None and self.alive:
            self._proc.stdin.close()
            try:
                await asyncio.wait_for(self._proc.wait(), CLOSE_GRACE)
            except asyncio.TimeoutError:
                log.warning("the worker did not exit within %.0f s of being closed: killed", CLOSE_GRACE)
        await self.kill()


class _Adopted:
    """An early worker's `subprocess.Popen` as the engine uses an asyncio subprocess."""

    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        stdin: asyncio.StreamWriter,
        stdout: asyncio.StreamReader,
        stderr: asyncio.StreamReader,
    ) -> None:
        self.popen, self.stdin, self.stdout, self.stderr = popen, stdin, stdout, stderr

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def returncode(self) -> int | None:
        return self.popen.poll()

    def kill(self) -> None:
        self.popen.kill()

    async def wait(self) -> int:
        return await asyncio.to_thread(self.popen.wait)


async def _adopted(popen: subprocess.Popen[bytes]) -> _Adopted:
    loop = asyncio.get_running_loop()
    assert popen.stdin and popen.stdout and popen.stderr

    async def reader(pipe: Any) -> asyncio.StreamReader:
        stream = asyncio.StreamReader(limit=STREAM_LIMIT)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream), pipe)
        return stream

    transport, writing = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, popen.stdin)
    stdin = asyncio.StreamWriter(transport, writing, None, loop)
    return _Adopted(popen, stdin, await reader(popen.stdout), await reader(popen.stderr))
