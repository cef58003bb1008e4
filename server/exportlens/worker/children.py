"""Starting and ending a job's child process: fork or spawn, kill its group, read its end."""

from __future__ import annotations

import os
import signal
import sys

from . import protocol


def can_fork() -> bool:
    return hasattr(os, "fork") and os.environ.get("EXPORTLENS_START") != "spawn"


def spawn_child(job: protocol.JobMessage, result_w: int, output_w: int) -> int:
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
