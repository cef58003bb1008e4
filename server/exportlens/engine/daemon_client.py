"""The engine's side of a worker daemon (daemon.py): connect to it, or start it, then use it as
its own worker (the interface of process.py's WorkerProcess).

Connecting: the socket is used only if it is this user's, 0600, in a 0700 folder of theirs, and
the process behind it runs as this user (daemon_paths.py). A socket nobody answers (a crashed
daemon's), one with the wrong permissions or one whose daemon says nothing (hung: it is killed)
is removed under a lock and a new daemon started, detached, so it outlives this run.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..persist.fingerprint import environment
from ..worker.wire import protocol
from ..worker.wire.records import ModuleTree
from .daemon_log import log_size, relay_worker_lines
from .daemon_paths import (
    DaemonPaths,
    DaemonUnavailable,
    daemon_key,
    flags_for,
    peer_allowed,
    peer_credentials,
    runtime_folder,
    secure_folder,
    socket_file_ok,
)
from .in_flight import JobsInFlight
from .process import STARTUP_TIMEOUT, STREAM_LIMIT, WorkerError

log = logging.getLogger("exportlens.daemon")
HELLO_TIMEOUT = 10.0  # a daemon that does not say hello within this is hung: killed, replaced
SPAWN_TIMEOUT = 30.0  # for a new daemon's socket to answer (it imports ExportLens's engine)


class DaemonWorker:
    """A connection to the daemon of this interpreter, used as the engine's worker."""

    def __init__(
        self,
        python: str | None,
        parallel: int,
        spares: bool,
        warm_first: bool,
        idle: float,
        may_start: bool = True,
    ) -> None:
        self.python = os.path.abspath(python or sys.executable)
        self.flags = flags_for(parallel, spares, warm_first)
        self.idle = idle
        self.may_start = may_start  # False: only a running daemon is used (the language server's)
        self.info: protocol.ReadyEvent | None = None
        self.warm = False
        self.spares_forked = 0
        self.daemon_pid: int | None = None
        self.daemon_clients = 0  # how many connections the daemon had accepted, this one included
        self.started_daemon = False  # this client started it
        self.last_heard = time.monotonic()
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._jobs = JobsInFlight()
        self._task: asyncio.Task[None] | None = None
        self._closed = True
        self._log: tuple[Path, int] | None = None  # the daemon's log, and its size when connected
        self._finding: asyncio.Future[DaemonPaths] | None = None

    @property
    def alive(self) -> bool:
        return not self._closed

    @property
    def pid(self) -> int | None:
        return self.info.get("pid") if self.info else None

    # -- connecting -----------------------------------------------------------
    def _paths(self) -> DaemonPaths:
        folder = secure_folder(runtime_folder())
        return DaemonPaths(folder, daemon_key(environment(self.python).digest, self.flags))

    async def start(self) -> protocol.ReadyEvent:
        if not hasattr(os, "fork"):
            raise DaemonUnavailable("no fork on this platform")
        for _attempt in range(3):
            # asks the interpreter for its packages: a process a cancelled start still waits for
            self._finding = asyncio.ensure_future(asyncio.to_thread(self._paths))
            paths = await asyncio.shield(self._finding)
            reader, writer = await self._connect_or_start(paths)
            hello = await self._line(reader, HELLO_TIMEOUT)
            if hello is None:  # hung (or gone): killed, its socket removed, a new one started
                self._kill_peer(writer)
                writer.close()
                await asyncio.to_thread(_unlink, paths)
                continue
            if hello.get("daemon") == "retired":  # its packages changed: ask the interpreter again
                writer.close()
                environment.cache_clear()
                continue
            self.daemon_pid, self.daemon_clients = hello.get("pid"), int(hello.get("clients", 0))
            self._log = (paths.log, log_size(paths.log))  # what the worker says from now on
            ready = await self._line(reader, STARTUP_TIMEOUT)
            if ready is None or ready.get("daemon") == "error" or ready.get("event") != "ready":
                writer.close()
                detail = (ready or {}).get("message") or f"no answer in {STARTUP_TIMEOUT:.0f} s"
                raise WorkerError(str(detail))
            self.info = protocol.decode_from_worker(json.dumps(ready).encode())  # type: ignore[assignment]
            self._reader, self._writer, self._closed = reader, writer, False
            self._task = asyncio.create_task(self._read_results(reader))
            log.info(
                "using the worker daemon (pid %s, client %d); its log, with the worker's stderr: %s",
                self.daemon_pid,
                self.daemon_clients,
                paths.log,
            )
            assert self.info is not None
            return self.info
        raise DaemonUnavailable("no daemon answered after three attempts")

    async def _connect_or_start(
        self, paths: DaemonPaths
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        connected = await _connect(paths)
        if connected is not None:
            return connected
        if not self.may_start:
            raise DaemonUnavailable("none runs")
        lock = await asyncio.to_thread(_lock, paths)
        try:
            connected = await _connect(paths)  # another client may have started one meanwhile
            if connected is not None:
                return connected
            await asyncio.to_thread(_unlink, paths)  # stale, or not safe to connect to
            await asyncio.to_thread(self._spawn, paths)
            self.started_daemon = True
            deadline = time.monotonic() + SPAWN_TIMEOUT
            while time.monotonic() < deadline:
                await asyncio.sleep(0.05)
                connected = await _connect(paths)
                if connected is not None:
                    return connected
            raise DaemonUnavailable(f"the worker daemon did not start: see {paths.log}")
        finally:
            os.close(lock)

    def _spawn(self, paths: DaemonPaths) -> None:
        log_fd = os.open(paths.log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        try:
            argv = [
                sys.executable,
                "-m",
                "exportlens.engine.daemon",
                paths.key,
                str(paths.folder),
                self.python,
            ]
            argv += [json.dumps(self.flags), str(self.idle)]
            # It forks and its first process exits: the daemon is no child of this run's.
            subprocess.run(
                argv, stdin=subprocess.DEVNULL, stdout=log_fd, stderr=log_fd, cwd=paths.folder, check=False
            )
        finally:
            os.close(log_fd)

    @property
    def looking_up(self) -> bool:
        """Its look-up (a probe of the interpreter, in a thread) still runs."""
        return self._finding is not None and not self._finding.done()

    async def settled(self) -> None:
        """A start that was cancelled: wait for its look-up (a probe of the interpreter, in a
        thread) to end, so that nothing it started outlives the engine's close."""
        if self._finding is not None and not self._finding.done():
            await asyncio.wait([self._finding])

    @staticmethod
    async def _line(reader: asyncio.StreamReader, timeout: float) -> dict[str, Any] | None:
        try:
            line = await asyncio.wait_for(reader.readline(), timeout)
            parsed = json.loads(line) if line else None
        except (asyncio.TimeoutError, ConnectionError, ValueError):
            return None
        return parsed if isinstance(parsed, dict) else None

    @staticmethod
    def _kill_peer(writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        pid, _uid = peer_credentials(sock) if sock is not None else (None, None)
        if pid and sock is not None and peer_allowed(sock):
            log.warning("the worker daemon (pid %d) does not answer: replaced", pid)
            try:
                os.kill(pid, signal.SIGKILL)  # its worker dies with it (PDEATHSIG)
            except ProcessLookupError:
                pass

    # -- messages -------------------------------------------------------------
    async def _read_results(self, reader: asyncio.StreamReader) -> None:
        try:
            while line := await reader.readline():
                self.last_heard = time.monotonic()
                self._handle(line)
        except (ConnectionError, ValueError):
            pass
        self._closed = True
        self._jobs.fail_all("the export worker exited")

    def _handle(self, line: bytes) -> None:
        if line.startswith(b'{"daemon"'):
            said = json.loads(line)
            if said.get("daemon") == "heard":
                self.last_heard = time.monotonic() - float(said.get("ago", 0.0))
            return
        try:
            message = protocol.decode_from_worker(line)
        except protocol.ProtocolError:
            log.exception("a line from the worker daemon is not a message: ignored")
            return
        if message["event"] == "partial":
            self._jobs.partial(message)
        elif message["event"] == "result":
            if message["answer"].get("worker_died"):
                self._closed = True  # the daemon exits with its worker: the next job restarts
            self._jobs.result(message)

    def send(self, message: protocol.ToWorker) -> None:
        if not self.alive or self._writer is None:
            raise WorkerError("the worker daemon is not connected")
        self._writer.write(protocol.encode(message))

    def submit(
        self, wire_job: protocol.JobMessage, on_partial: Callable[[protocol.JobAnswer], None] | None = None
    ) -> asyncio.Future[protocol.JobAnswer]:
        future = self._jobs.add(wire_job["id"], on_partial)
        # The daemon's worker runs where, and with the environment, it was started: the child
        # runs where this client does, with its environment.
        self.send({"op": "job", "job": {**wire_job, "cwd": os.getcwd(), "env": dict(os.environ)}})
        return future

    def built(self, job_id: int) -> ModuleTree | None:
        return self._jobs.built(job_id)

    def cancel(self, job_id: int) -> None:
        self._jobs.unlisten(job_id)
        if self.alive:
            self.send({"op": "cancel", "id": job_id})

    async def kill(self) -> None:
        """The worker is wedged (engine.py): the daemon is killed, for every client; the next
        job starts a new one."""
        if self._writer is not None and self.alive:
            self._kill_peer(self._writer)
        await self.close()

    async def close(self) -> None:
        """This client is done: the daemon stays for the next (its jobs still running end)."""
        self._closed = True
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        where, self._log = self._log, None
        if where is not None:
            relay_worker_lines(*where)
        if self._task is not None:
            self._task.cancel()
            self._task = None
        self._jobs.fail_all("the export worker was stopped")


async def _connect(paths: DaemonPaths) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
    """A connection to the daemon at `paths`, if it is safe (this user's socket and process)."""
    if not socket_file_ok(paths.socket):
        return None
    try:
        reader, writer = await asyncio.open_unix_connection(str(paths.socket), limit=STREAM_LIMIT)
    except OSError:
        return None
    sock = writer.get_extra_info("socket")
    if sock is None or not peer_allowed(sock):
        log.warning("%s is served by another user's process: not used", paths.socket)
        writer.close()
        return None
    return reader, writer


def _lock(paths: DaemonPaths) -> int:
    import fcntl  # POSIX only: the CLI on native Windows imports this module, never calls it

    fd = os.open(paths.lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def _unlink(paths: DaemonPaths) -> None:
    try:
        os.unlink(paths.socket)
    except FileNotFoundError:
        pass
