"""A job child forked before its job, and warmed while the worker waits.

A child forked at the moment a job arrives pays, inside the job's time, for the fork itself,
for copying every page of the warm worker it touches (copy-on-write) and for per-process
first-use costs: ~40 ms of a 140 ms MLP check here.  When nothing runs or waits, the worker
forks one spare; it runs two tiny exports (one per tracer) to touch those pages, says it is
warm, and blocks until it is handed a job.  It has run no user code, so it is as clean as a
fresh fork, and it runs one job and exits like one.  A spare that is still warming when a job
comes is dropped (finishing its warm-up would only delay the job); one that does not take its
job (killed meanwhile) is replaced by a fresh fork, so the job never sees it.

A spare is forked only after a quiet interval with no new job (`QUIET`): while the user types,
every job supersedes the last, and a spare forked between two of them would be dropped or
barely warm, CPU taken from the job that matters.  None before the worker's warm-up is done
(a spare forked from a cold worker would warm only itself), and none in the CLI (the engine
switches them off: one child per job is all it needs).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
from dataclasses import dataclass
from typing import NoReturn

from ..core.isolation import die_with_parent, set_process_name
from ..wire import protocol
from ..wire.shared import FORKED_LINE

# What a waiting spare is called in /proc/<pid>/comm (15 bytes at most): tools and tests tell
# it from a process a job left behind.  It takes its old name back when it gets a job.
IDLE_NAME = "exportlens-idle"
TAKE_WAIT = 2.0  # seconds a warm spare has to confirm it has read its job
QUIET = float(os.environ.get("EXPORTLENS_SPARE_QUIET", "0.4"))  # s with no new job before a spare


@dataclass
class Spare:
    pid: int
    job_w: int  # the worker writes the job here, then closes it
    result_r: int
    output_r: int
    signal_r: int  # from the spare: b"w" once warm, b"j" once it has read its job
    warm: bool = False


class Spares:
    """At most one spare; `reaping` is the worker's set of children to reap without waiting."""

    def __init__(self, proto_fd: int, enabled: bool, reaping: set[int]) -> None:
        self.proto_fd = proto_fd
        self.enabled = enabled
        self.reaping = reaping
        self.spare: Spare | None = None

    def pids(self) -> set[int]:
        return {self.spare.pid} if self.spare else set()

    def fds(self) -> list[int]:
        """What to watch: a warming spare's signal."""
        return [self.spare.signal_r] if self.spare and not self.spare.warm else []

    def keep(self, idle: bool, quiet_for: float) -> float | None:
        """Fork a spare if the worker is idle and has been sent no job for `QUIET` seconds;
        else the seconds until it may (None: not while it is busy, or has one)."""
        if not self.enabled or not idle or self.spare is not None:
            return None
        if quiet_for < QUIET:
            return QUIET - quiet_for
        self.spare = _fork(self.proto_fd)
        print(FORKED_LINE, file=sys.stderr, flush=True)
        return None

    def on_ready(self, ready: list[int]) -> None:
        spare = self.spare
        if spare is None or spare.warm or spare.signal_r not in ready:
            return
        if _read_byte(spare.signal_r) == b"w":
            spare.warm = True
        else:  # it died while warming
            self.drop()

    def take(self, job: protocol.JobMessage) -> tuple[int, int, int] | None:
        """Hand `job` to the warm spare: its (pid, result fd, output fd), or None (fork one)."""
        spare = self.spare
        if spare is None:
            return None
        if not spare.warm:
            self.drop()
            return None
        try:
            protocol.write_all(spare.job_w, protocol.encode(job))
            os.close(spare.job_w)
            taken = (
                select.select([spare.signal_r], [], [], TAKE_WAIT)[0] and _read_byte(spare.signal_r) == b"j"
            )
        except OSError:
            taken = False
        if not taken:
            self.drop()
            return None
        self.spare = None
        os.close(spare.signal_r)
        return spare.pid, spare.result_r, spare.output_r

    def drop(self) -> None:
        spare, self.spare = self.spare, None
        if spare is None:
            return
        for fd in (spare.result_r, spare.output_r, spare.job_w, spare.signal_r):
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(spare.pid, signal.SIGKILL)
        self.reaping.add(spare.pid)


def _read_byte(fd: int) -> bytes:
    try:
        return os.read(fd, 1)
    except (BlockingIOError, OSError):
        return b""


def _fork(proto_fd: int) -> Spare:
    job_r, job_w = os.pipe()
    result_r, result_w = os.pipe()
    output_r, output_w = os.pipe()
    signal_r, signal_w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    name = set_process_name(IDLE_NAME)  # inherited at the fork: never seen under another name
    pid = os.fork()
    if pid == 0:
        for fd in (job_w, result_r, output_r, signal_r, proto_fd):
            os.close(fd)
        _wait_for_job(job_r, result_w, output_w, signal_w, name)
    set_process_name(name)
    for fd in (job_r, result_w, output_w, signal_w):
        os.close(fd)
    for fd in (result_r, output_r, signal_r):
        os.set_blocking(fd, False)
    return Spare(pid, job_w, result_r, output_r, signal_r)


def _wait_for_job(job_r: int, result_w: int, output_w: int, signal_w: int, name: str) -> NoReturn:
    die_with_parent()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # never the engine's pipes; the job's own capture comes with the job
        os.dup2(devnull, fd)
    os.close(devnull)
    with contextlib.suppress(BaseException):  # warming is an optimisation only
        from .torch_state import leaves_no_trace

        with leaves_no_trace():  # as clean as a fresh fork: its exports leave nothing in torch
            _touch()
    try:
        os.write(signal_w, b"w")
        chunks = []
        while chunk := os.read(job_r, 1 << 16):
            chunks.append(chunk)
        if not chunks:
            os._exit(0)  # the worker is done with us
        os.write(signal_w, b"j")
        os.close(signal_w)
    except OSError:
        os._exit(0)
    from ..job.child import run_job_in_child

    set_process_name(name)
    run_job_in_child(protocol.decode_job(b"".join(chunks)), result_w, output_w)


def _touch() -> None:
    import torch

    class Tiny(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = torch.nn.Linear(4, 4)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            out: torch.Tensor = self.linear(x).relu()
            return out

    for strict in (False, True):
        torch.export.export(Tiny(), (torch.randn(2, 4),), strict=strict)
