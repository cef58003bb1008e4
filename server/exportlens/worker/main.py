"""The long-lived worker: imports torch once, warms it up, forks a child per job.

It never runs user code itself, so it stays healthy whatever a job does.  One
single-threaded select loop reads jobs from stdin, drains each child's output
and result pipes, enforces timeouts and reaps children: no threads, so forking
is safe.  Protocol messages go to a private duplicate of fd 1; fd 1 itself is
pointed at stderr so nothing else can corrupt the stream.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from . import protocol
from .isolation import become_subreaper, die_with_parent, sweep_strays
from .warmup import warm_up

OUTPUT_KEEP = 64 * 1024  # bytes of a job's captured stdout/stderr sent back


@dataclass
class Running:
    job: dict[str, Any]
    pid: int
    result_fd: int
    output_fd: int
    started: float
    deadline: float
    result: bytearray = field(default_factory=bytearray)
    output: bytearray = field(default_factory=bytearray)
    output_dropped: int = 0
    killed: str | None = None  # "timeout" | "cancelled" when we killed it
    exit_status: int | None = None  # set once reaped
    open_fds: set[int] = field(default_factory=set)


class Worker:
    def __init__(self, proto_fd: int, max_parallel: int) -> None:
        self.proto_fd = proto_fd
        self.max_parallel = max_parallel
        self.queue: list[dict[str, Any]] = []
        self.running: dict[int, Running] = {}  # by job id
        self.stdin = protocol.LineReader()
        self.closing = False

    # -- messages -----------------------------------------------------------
    def send(self, message: dict[str, Any]) -> None:
        protocol.write_all(self.proto_fd, protocol.encode(message))

    def handle(self, message: dict[str, Any]) -> None:
        op = message.get("op")
        if op == "job":
            self.queue.append(message["job"])
        elif op == "cancel":
            self.cancel(int(message["id"]))
        elif op == "ping":
            self.send({"event": "pong", "id": message.get("id")})
        elif op == "shutdown":
            self.closing = True

    def cancel(self, job_id: int) -> None:
        for queued in list(self.queue):
            if queued["id"] == job_id:
                self.queue.remove(queued)
                self.send({"event": "result", "id": job_id, "status": "cancelled", "seconds": 0.0})
        run = self.running.get(job_id)
        if run and not run.killed:
            run.killed = "cancelled"
            kill_group(run.pid)

    # -- children -----------------------------------------------------------
    def start_next(self) -> None:
        while self.queue and len(self.running) < self.max_parallel:
            job = self.queue.pop(0)
            self.running[job["id"]] = self.fork(job)

    def fork(self, job: dict[str, Any]) -> Running:
        result_r, result_w = os.pipe()
        output_r, output_w = os.pipe()
        if hasattr(os, "fork") and os.environ.get("EXPORTLENS_START") != "spawn":
            from .child import run_job_in_child

            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:  # child: never returns
                os.close(result_r)
                os.close(output_r)
                os.close(self.proto_fd)
                run_job_in_child(job, result_w, output_w)
        else:
            pid = spawn_child(job, result_w, output_w)
        os.close(result_w)
        os.close(output_w)
        for fd in (result_r, output_r):
            os.set_blocking(fd, False)
        now = time.monotonic()
        run = Running(job, pid, result_r, output_r, now, now + float(job.get("timeout", 30)))
        run.open_fds = {result_r, output_r}
        return run

    def drain(self, run: Running, fd: int) -> bool:
        """Read what is there; False at end of file."""
        try:
            data = os.read(fd, 1 << 16)
        except BlockingIOError:
            return True
        if not data:
            return False
        if fd == run.result_fd:
            run.result += data
            self.forward_partials(run)
        else:
            room = OUTPUT_KEEP - len(run.output)
            run.output += data[:room]
            run.output_dropped += max(0, len(data) - room)
        return True

    def forward_partials(self, run: Running) -> None:
        """Pass on the child's early reports (complete lines marked "partial") as they come."""
        while (end := run.result.find(b"\n")) >= 0:
            message = json.loads(bytes(run.result[:end]))
            if not message.pop("partial", False):
                return  # the final result: sent by `finish`
            del run.result[: end + 1]
            if not run.killed:
                self.send({**message, "event": "partial", "id": run.job["id"]})

    def finish(self, run: Running) -> None:
        """Child's pipes are closed or it was killed: reap it and report."""
        kill_group(run.pid, include_leader=run.exit_status is None)  # grandchildren it left behind
        for fd in (run.result_fd, run.output_fd):
            while fd in run.open_fds and select.select([fd], [], [], 0.05)[0]:
                if not self.drain(run, fd):
                    break
            os.close(fd)
        status = run.exit_status if run.exit_status is not None else os.waitpid(run.pid, 0)[1]
        seconds = time.monotonic() - run.started
        message: dict[str, Any] = {"event": "result", "id": run.job["id"], "seconds": seconds}
        message["output"] = run.output.decode("utf-8", errors="replace")
        message["output_dropped"] = run.output_dropped
        if run.killed:
            message["status"] = run.killed
        elif run.result:
            message.update(json.loads(bytes(run.result)))
            entered = message.pop("entered", None)
            if isinstance(entered, float) and isinstance(message.get("timings"), dict):
                message["timings"]["fork"] = entered - run.started
        else:
            message["status"] = "crashed"
            message["exit"] = describe_status(status)
        self.send(message)

    # -- loop -----------------------------------------------------------------
    def loop(self) -> None:
        os.set_blocking(0, False)
        stdin_open = True
        while stdin_open or self.running or self.queue:
            if self.closing and not self.running:
                break
            sweep_strays({run.pid for run in self.running.values()})  # left behind by finished jobs
            self.start_next()
            fds = [0] if stdin_open else []
            for run in self.running.values():
                fds += list(run.open_fds)
            now = time.monotonic()
            wait = min([r.deadline - now for r in self.running.values()] + [1.0])
            ready = select.select(fds, [], [], max(wait, 0.0))[0]
            if 0 in ready:
                try:
                    data = os.read(0, 1 << 16)
                except BlockingIOError:
                    data = b"?"
                if not data:
                    stdin_open = False  # engine went away: finish up and exit
                    for run in self.running.values():
                        run.killed = run.killed or "cancelled"
                        kill_group(run.pid)
                elif data != b"?":
                    for message in self.stdin.feed(data):
                        self.handle(message)
            for run in list(self.running.values()):
                for fd in list(run.open_fds):
                    if fd in ready and not self.drain(run, fd):
                        run.open_fds.discard(fd)
                if time.monotonic() > run.deadline and not run.killed:
                    run.killed = "timeout"
                    kill_group(run.pid)
                # A child's grandchildren may hold its pipes open: once it has
                # exited or we killed it, stop waiting for end of file.
                if not run.open_fds or child_exited(run):
                    del self.running[run.job["id"]]
                    self.finish(run)


def spawn_child(job: dict[str, Any], result_w: int, output_w: int) -> int:
    """The fallback where fork is unavailable: a fresh interpreter runs the job."""
    import subprocess

    from .boot import BOOT

    here = os.path.dirname(os.path.abspath(__file__))
    proc = subprocess.Popen(
        [sys.executable, "-c", BOOT, os.path.join(here, "__init__.py"), here, "spawned", str(result_w)],
        stdin=subprocess.PIPE,
        stdout=output_w,
        stderr=output_w,
        pass_fds=(result_w,),
        start_new_session=True,
    )
    assert proc.stdin is not None
    proc.stdin.write(protocol.encode(job))
    proc.stdin.close()
    return proc.pid


def child_exited(run: Running) -> bool:
    if run.exit_status is not None:
        return True
    pid, status = os.waitpid(run.pid, os.WNOHANG)
    if pid == 0:
        return False
    run.exit_status = status
    return True


def kill_group(pid: int, include_leader: bool = True) -> None:
    """SIGKILL the job's process group; the child leads it (setsid).

    `include_leader` is False once the child is reaped: its pid may be reused.
    """
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if include_leader:
        try:
            os.kill(pid, signal.SIGKILL)  # in case it had not reached setsid yet
        except (ProcessLookupError, PermissionError):
            pass


def describe_status(status: int) -> dict[str, Any]:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        return {"signal": signal.Signals(sig).name if sig in signal.valid_signals() else str(sig)}
    return {"code": os.WEXITSTATUS(status)}


def prepare_for_forking() -> None:
    """Make each fork cheap: children inherit what is imported and touch little memory."""
    import gc

    from . import allfailures, child, failure, inputs, loader, sizing, summary  # noqa: F401

    gc.collect()
    # Frozen objects are never scanned by the collector, so a child's garbage
    # collections do not write to (and copy) every page of the inherited heap.
    gc.freeze()


def torch_origin() -> str | None:
    """The file `import torch` loads in this interpreter (None: there is none)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return None
    return spec.origin if spec is not None else None


def main() -> None:
    die_with_parent()
    become_subreaper()
    proto_fd = os.dup(1)
    os.dup2(2, 1)  # stray prints in this process go to stderr, never to the protocol
    started = time.monotonic()
    worker = Worker(proto_fd, max_parallel=int(os.environ.get("EXPORTLENS_PARALLEL", "2")))
    try:
        import torch

        warm_up()
        prepare_for_forking()
    except BaseException as exc:  # noqa: BLE001 - any failure here is reported, not raised
        torch_version = getattr(sys.modules.get("torch"), "__version__", None)  # for "too old"
        worker.send(
            {
                "event": "fatal",
                "message": f"{type(exc).__name__}: {exc}",
                "python": sys.executable,
                "torch": str(torch_version).split("+")[0] if torch_version else None,
                "torch_origin": torch_origin(),  # for "shadowed by"
            }
        )
        return
    worker.send(
        {
            "event": "ready",
            "torch": torch.__version__.split("+")[0],
            "python": ".".join(map(str, sys.version_info[:3])),
            "pid": os.getpid(),
            "warmup_seconds": time.monotonic() - started,
        }
    )
    worker.loop()
