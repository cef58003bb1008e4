"""A job's child process: what the worker knows of it, fork or spawn, kill its group, read its end."""

from __future__ import annotations

import os
import signal
import sys
from dataclasses import dataclass, field
from typing import Literal

from ..core.time_limit import RECHECK, Clock, cpu_seconds
from ..wire import protocol
from ..wire.records import Frame, ModuleTree

OUTPUT_KEEP = 64 * 1024  # bytes of a job's captured stdout/stderr sent back


@dataclass
class Running:
    job: protocol.JobMessage
    pid: int
    result_fd: int
    output_fd: int
    started: float
    deadline: float
    result: bytearray = field(default_factory=bytearray)
    output: bytearray = field(default_factory=bytearray)
    output_dropped: int = 0
    killed: Literal["timeout", "cancelled"] | None = None  # when we killed it
    exit_status: int | None = None  # set once reaped
    open_fds: set[int] = field(default_factory=set)
    fake_cache: object = None  # what its answer hands back to the worker's cache (fake_cache.py)
    clock: Clock | None = None  # when its time is up (time_limit.py)
    stage: protocol.Pass = "load"  # the pass it said it started
    strict: bool | None = None  # its tracer, once it said
    # Its answer so far (the first failure before the passes after it): what a timeout reports.
    fallback: protocol.JobAnswer | None = None
    tree: ModuleTree | None = None  # what it exports, once it said: every way it ends reports it
    stopped_at: list[Frame] = field(default_factory=list)  # its stack when its time was up

    @staticmethod
    def began(job: protocol.JobMessage, pid: int, result_fd: int, output_fd: int, started: float) -> Running:
        """A child that has its job from `started` on: its time counts from then (time_limit.py)."""
        timeout = float(job["timeout"] or 30)
        run = Running(job, pid, result_fd, output_fd, started, started + timeout)
        run.clock = Clock(timeout, started, cpu_seconds(pid))
        run.strict = job["strict"]
        run.open_fds = {result_fd, output_fd}
        return run

    def time_is_up(self, now: float) -> bool:
        """Past its deadline: stop it, or look again at the new `deadline` (time_limit.py)."""
        if self.clock is None or self.clock.expired(now, cpu_seconds(self.pid)):
            return True
        self.deadline = now + RECHECK
        return False

    def answered(self) -> bool:
        """The child's final result line is complete (early reports are consumed as they come)."""
        return self.result.endswith(b"\n")


StartMethod = Literal["fork", "spawn"]


def start_method(platform: str = sys.platform, chosen: str | None = None) -> StartMethod:
    """How a job's child starts: forked from the warm worker, or a fresh interpreter (spawned).

    A fork shares the torch the worker imported and is ready in milliseconds (Linux, WSL).  On
    macOS a fork of a process that has imported torch is unsafe: the system frameworks torch
    loads (Accelerate, Metal, the Objective-C runtime) may hold locks or threads the child never
    gets back, which is why CPython's multiprocessing spawns there; each job then pays a cold
    `import torch`.  `chosen` (EXPORTLENS_START: fork or spawn) overrides the platform's default.
    """
    if not hasattr(os, "fork"):
        return "spawn"
    if chosen == "fork":
        return "fork"
    if chosen == "spawn":
        return "spawn"
    return "spawn" if platform == "darwin" else "fork"


def timed_out(run: Running) -> protocol.JobAnswer:
    """What a child stopped at its time limit leaves: the answer it had (its first failure, a clean
    export before its lowerings), else a timeout; either says which pass ran out."""
    if run.fallback is not None:
        answer: protocol.JobAnswer = {**run.fallback, "stopped_in": run.stage}
        failure = answer.get("failure")
        if failure is not None and not failure.get("more_truncated"):
            failure["more_truncated"] = protocol.out_of_time(run.stage)
        targets = run.job.get("targets") or []
        if answer["status"] == "exported" and targets and "targets" not in answer:
            skipped = protocol.TARGET_OUT_OF_TIME
            answer["targets"] = [{"target": t, "ok": False, "skipped": skipped} for t in targets]
        return answer
    answer = {"status": "timeout", "stopped_in": run.stage}
    if run.stopped_at:
        answer["stopped_at"] = run.stopped_at
    if run.strict is not None:
        answer["strict"] = run.strict
    return answer


def crashed_after_answer(run: Running, how: str) -> protocol.JobAnswer | None:
    """A child that died in a pass after its answer (a lowering, the parts' eager run) leaves that
    answer: the export's verdict stands, the pass that crashed is said as not run; else None."""
    if run.fallback is None:
        return None
    answer: protocol.JobAnswer = {**run.fallback, "crashed_in": run.stage}
    failure = answer.get("failure")
    if failure is not None and not failure.get("more_truncated"):
        failure["more_truncated"] = f"{protocol.PASSES[run.stage]} crashed the check's process ({how})"
    targets = run.job.get("targets") or []
    if answer["status"] == "exported" and targets and "targets" not in answer:
        skipped = protocol.TARGET_CRASHED.format(how=how, what=protocol.PASSES[run.stage])
        answer["targets"] = [{"target": t, "ok": False, "skipped": skipped} for t in targets]
    return answer


def can_fork() -> bool:
    return start_method(chosen=os.environ.get("EXPORTLENS_START")) == "fork"


def spawn_child(job: protocol.JobMessage, result_w: int, output_w: int) -> int:
    """Where fork is unavailable or unsafe (`start_method`): a fresh interpreter runs the job."""
    import subprocess

    from ..wire.boot import BOOT

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the worker package
    proc = subprocess.Popen(
        [sys.executable, "-c", BOOT, os.path.join(here, "__init__.py"), here, "job.spawned", str(result_w)],
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


def describe_status(status: int) -> protocol.ExitInfo:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        return {"signal": signal.Signals(sig).name if sig in signal.valid_signals() else str(sig)}
    return {"code": os.WEXITSTATUS(status)}


def child_exited(run: Running) -> bool:
    if run.exit_status is not None:
        return True
    pid, status = os.waitpid(run.pid, os.WNOHANG)
    if pid == 0:
        return False
    run.exit_status = status
    return True
