"""The worker daemon: one warm worker that outlives a CLI run, shared by the user's clients.

Started detached by daemon_client.py (`python -m exportlens.engine.daemon KEY PYTHON FLAGS IDLE`),
it owns a worker exactly as an engine does (process.py: forked children, their time and memory
limits) and relays jobs between it and the clients connected to its socket (daemon_paths.py).
Each client's job ids are its own (the daemon renumbers them for the worker); clients' jobs go to
the worker in turns, at most `parallel` at a time. It exits when no client used it for `IDLE`
seconds, when its worker dies, when its interpreter's packages change (their digest is checked at
each connection and job and every few seconds) or when its socket is no longer its own.

Lines to a client: a hello (`{"daemon": "hello", ...}`), then the worker's "ready" (or
`{"daemon": "error"}`), then the worker's events with the client's ids, and while the client's
jobs run, `{"daemon": "heard", "ago": s}`: how long ago the worker last spoke (the engine's
wedged-worker check).
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import json
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ..persist.fingerprint import probe_command, read_environment
from ..worker.wire import protocol
from .daemon_paths import DaemonPaths, daemon_key, peer_allowed, peer_credentials
from .daemon_status import DaemonStatus, StatusFile
from .process import STREAM_LIMIT, WorkerError, WorkerProcess

log = logging.getLogger("exportlens.daemon")
CHECK_EVERY = 2.0  # s between checks of the packages and the socket while idle
HEARD_EVERY = 2.0  # s between "heard" lines to a client whose jobs run


class Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.queue: collections.deque[protocol.JobMessage] = collections.deque()
        self.running: dict[int, int] = {}  # the client's job id -> the worker's
        self.closed = False

    def send(self, message: Any) -> None:
        if self.closed:
            return
        try:
            self.writer.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        except (ConnectionError, RuntimeError):
            self.closed = True


class Daemon:
    def __init__(self, paths: DaemonPaths, python: str, flags: dict[str, str], idle: float) -> None:
        self.paths, self.python, self.flags, self.idle = paths, python, flags, idle
        self.probe: str | None = None  # the interpreter's sys.path, asked while the worker starts
        self.parallel = int(flags.get("EXPORTLENS_PARALLEL", "2"))
        self.worker = WorkerProcess(
            python,
            self.parallel,
            flags.get("EXPORTLENS_SPARE") != "0",
            flags.get("EXPORTLENS_WARM_FIRST") == "1",
        )
        self.ready = asyncio.Event()
        self.error = ""
        self.connections: list[Connection] = []
        self.turn = 0  # round robin over connections
        self.ids = itertools.count(1)
        self.in_flight = 0
        self.clients = 0  # connections accepted (the CLI's json says which run of this daemon it was)
        self.last_used = time.monotonic()
        self.retired = ""
        self.stop = asyncio.Event()
        self.socket_inode = 0
        self.checked_at = 0.0
        self.started = time.time()
        self.prefix = ""  # its environment, once the probe answered
        self.status_file = StatusFile(paths)

    # -- the daemon's life ----------------------------------------------------
    async def run(self) -> None:
        os.umask(0o077)  # the socket is created 0600
        server = await asyncio.start_unix_server(self.serve, path=str(self.paths.socket), limit=STREAM_LIMIT)
        os.chmod(self.paths.socket, 0o600)
        self.socket_inode = os.stat(self.paths.socket).st_ino
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, self.stop.set)
        starting = asyncio.create_task(self.start_worker())
        self.probe = await asyncio.to_thread(_probe, self.python)
        self.prefix = read_environment(self.python, self.probe).prefix if self.probe else ""
        self.say_status()
        try:
            while not self.stop.is_set() and not self.done():
                try:
                    await asyncio.wait_for(self.stop.wait(), min(CHECK_EVERY, max(self.idle / 4, 0.05)))
                except asyncio.TimeoutError:
                    pass
                if not self.retired and not self.current():
                    self.retire("its interpreter's packages changed or its socket was replaced")
                if self.retired:
                    server.close()
                self.say_status()
        finally:
            server.close()
            self.unlink_socket()
            self.status_file.remove()
            starting.cancel()
            for connection in self.connections:
                connection.writer.close()
            await self.worker.close()
        log.info("exiting (%s)", self.retired or "stopped")

    def say_status(self) -> None:
        info = self.worker.info
        self.status_file.say(
            DaemonStatus(
                pid=os.getpid(),
                python=self.python,
                prefix=self.prefix,
                torch=info["torch"] if info else "",
                worker_pid=info["pid"] if info else None,
                started=self.started,
                last_used=time.time() - (time.monotonic() - self.last_used),
                clients=self.clients,
                retiring=self.retired,
            )
        )

    def done(self) -> bool:
        if self.connections or self.in_flight:
            # a dead worker's clients are told (their jobs failed, the error said) and leave
            return bool(self.ready.is_set() and not self.error and not self.worker.alive)
        if self.error or (self.ready.is_set() and not self.worker.alive):
            self.retired = self.retired or (self.error or "its worker exited")
            return True
        if self.retired:
            return True
        if time.monotonic() - self.last_used > self.idle:
            self.retired = f"idle for {self.idle:g} s"
            return True
        return False

    async def start_worker(self) -> None:
        try:
            info = await self.worker.start()
            log.info("worker ready (pid %s, torch %s)", info.get("pid"), info.get("torch"))
        except WorkerError as exc:
            self.error = str(exc)
        except Exception as exc:
            log.exception("the worker could not start")
            self.error = f"the worker could not start: {exc}"
        self.ready.set()

    def current(self) -> bool:
        """Still the daemon its socket's name says: same packages, its own socket file."""
        now = time.monotonic()
        if now - self.checked_at < 1.0 or self.probe is None:
            return True
        self.checked_at = now
        try:
            if os.stat(self.paths.socket).st_ino != self.socket_inode:
                return False
        except OSError:
            return False
        digest = read_environment(self.python, self.probe).digest
        try:
            return daemon_key(digest, self.flags) == self.paths.key
        except Exception:  # noqa: BLE001 - the interpreter cannot be read: not current
            return False

    def retire(self, why: str) -> None:
        """Take no new client; exit once the connected ones are gone."""
        log.info("retiring: %s", why)
        self.retired = why
        self.unlink_socket()

    def unlink_socket(self) -> None:
        try:
            if os.stat(self.paths.socket).st_ino == self.socket_inode:
                os.unlink(self.paths.socket)
        except OSError:
            pass

    # -- clients ------------------------------------------------------------
    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        if sock is None or not peer_allowed(sock):
            log.warning(
                "refused a client of another user (pid, uid: %s)", peer_credentials(sock) if sock else None
            )
            writer.close()
            return
        connection = Connection(reader, writer)
        self.clients += 1
        self.last_used = time.monotonic()
        if self.retired or not self.current():
            if not self.retired:
                self.retire("its interpreter's packages changed or its socket was replaced")
            connection.send({"daemon": "retired"})
            writer.close()
            return
        connection.send({"daemon": "hello", "pid": os.getpid(), "clients": self.clients})
        self.connections.append(connection)  # from now on the daemon is not idle
        heard = asyncio.create_task(self.tell_heard(connection))
        try:
            await self.ready.wait()
            if self.error or self.worker.info is None:
                connection.send({"daemon": "error", "message": self.error or "the worker exited"})
                return
            connection.send(self.worker.info)
            while line := await reader.readline():
                self.handle(connection, line)
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass
        finally:
            heard.cancel()
            connection.closed = True
            self.connections.remove(connection)
            connection.queue.clear()
            for worker_id in connection.running.values() if self.worker.alive else ():
                self.worker.cancel(worker_id)  # a client gone wants nothing more of its jobs
            self.last_used = time.monotonic()
            self.say_status()
            writer.close()

    def handle(self, connection: Connection, line: bytes) -> None:
        try:
            message = protocol.decode_to_worker(line)
        except protocol.ProtocolError as exc:
            log.warning("a client sent a line that is not a message: %s", exc)
            return
        if message["op"] == "job":
            if not self.current():
                self.retire("its interpreter's packages changed or its socket was replaced")
            connection.queue.append(message["job"])
            self.dispatch()
            return
        job_id = message["id"]
        for queued in list(connection.queue):
            if queued["id"] == job_id:
                connection.queue.remove(queued)
                connection.send(
                    {"event": "result", "id": job_id, "answer": {"status": "cancelled", "seconds": 0.0}}
                )
        if job_id in connection.running and self.worker.alive:
            self.worker.cancel(connection.running[job_id])

    def dispatch(self) -> None:
        """Send queued jobs to the worker, one client's at a time in turn."""
        while self.in_flight < self.parallel and self.worker.alive:
            waiting = [c for c in self.connections if c.queue and not c.closed]
            if not waiting:
                return
            self.turn += 1
            connection = waiting[self.turn % len(waiting)]
            self.submit(connection, connection.queue.popleft())

    def submit(self, connection: Connection, job: protocol.JobMessage) -> None:
        client_id, worker_id = job["id"], next(self.ids)
        connection.running[client_id] = worker_id
        self.in_flight += 1

        def partial(answer: protocol.JobAnswer) -> None:
            connection.send({"event": "partial", "id": client_id, "answer": answer})

        def finished(future: asyncio.Future[protocol.JobAnswer]) -> None:
            self.in_flight -= 1
            self.last_used = time.monotonic()
            connection.running.pop(client_id, None)
            if not future.cancelled():
                connection.send({"event": "result", "id": client_id, "answer": future.result()})
            if not self.worker.alive:  # its clients restart at once (a job queued would wait)
                self.retired = self.retired or "its worker exited"
                self.stop.set()
                return
            self.dispatch()

        future = self.worker.submit({**job, "id": worker_id}, partial)
        future.add_done_callback(finished)

    async def tell_heard(self, connection: Connection) -> None:
        while True:
            await asyncio.sleep(HEARD_EVERY)
            if connection.running or connection.queue:
                connection.send({"daemon": "heard", "ago": time.monotonic() - self.worker.last_heard})


def _probe(python: str) -> str | None:
    """The interpreter's answer to persist/fingerprint.py's probe; None if it gave none."""
    try:
        return subprocess.run(probe_command(python), capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None


def main(argv: list[str] | None = None) -> None:
    """Detach (fork; the starter's child returns at once), then serve until done."""
    key, folder, python, flags_json, idle = (argv or sys.argv[1:])[:5]
    flags = json.loads(flags_json)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s: %(message)s")
    # The worker's own stderr lines (its warm-up, spares, errors; a job's output is the job's):
    # a client run with --verbose shows those its connection saw (daemon_client.py).
    logging.getLogger("exportlens.worker").setLevel(logging.DEBUG)
    if os.fork() != 0:
        os._exit(0)
    os.setsid()
    daemon = Daemon(DaemonPaths(Path(folder), key), python, flags, float(idle))
    asyncio.run(daemon.run())


if __name__ == "__main__":
    main()
