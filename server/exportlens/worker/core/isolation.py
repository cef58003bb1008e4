"""Process hygiene for the worker and its per-job children (Linux first).

Tests and tools import this module (through host/spare.py) on every platform: the POSIX-only
`resource` is imported where a child is capped, so importing it works on Windows too.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time

PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """Ask the kernel to SIGKILL us when our parent dies: no orphans, ever."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


PR_SET_NAME = 15


def set_process_name(name: str) -> str:
    """Set this process's name (/proc/self/comm); returns the old one."""
    try:
        with open("/proc/self/comm") as comm:
            old = comm.read().strip()
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_NAME, name.encode()[:15], 0, 0, 0)
    except (OSError, AttributeError):
        return name
    return old


def isolate_child(output_fd: int, memory_mb: int | None) -> None:
    """Own process group, no stdin, fds 1 and 2 captured, address space capped."""
    try:
        os.setsid()  # so the worker can kill everything the job spawns at once
    except PermissionError:
        pass  # a spawned child is already a session leader
    die_with_parent()
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(output_fd, 1)
    os.dup2(output_fd, 2)
    os.close(devnull)
    os.close(output_fd)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)
    if hasattr(signal, "SIGUSR1"):  # the worker asks where it is before a timeout's kill (stack_at_stop.py)
        import faulthandler

        faulthandler.register(signal.SIGUSR1, file=2, all_threads=False)
    if memory_mb:
        import resource

        # The child starts as a copy of the warm worker; the cap is on top of that.
        limit = current_address_space() + memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def current_address_space() -> int:
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0


PR_SET_CHILD_SUBREAPER = 36
SWEEP_EVERY = 0.5  # seconds between two looks for strays
_last_sweep = 0.0


def become_subreaper() -> None:
    """Orphans of the jobs' processes are re-parented to us (not to init), so we can end them.

    A job's child leads its own process group, which the worker kills with the job; a
    process the job started in a new session (`setsid`, a daemon's double fork) leaves that
    group, and without this would outlive the job under init.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def sweep_strays(running: set[int]) -> None:
    """SIGKILL and reap our children that belong to no running job (at most every SWEEP_EVERY s).

    `running`: pids of the jobs' children, each the leader of its job's process group.  A
    child of ours that is none of them, in none of their groups and not in our own group was
    left behind by a finished job and re-parented to us (become_subreaper); zombies among
    them are reaped.
    """
    global _last_sweep
    now = time.monotonic()
    if now - _last_sweep < SWEEP_EVERY or not sys.platform.startswith("linux"):
        return
    _last_sweep = now
    me, own_group = os.getpid(), os.getpgrp()
    for pid, pgid in _children(me):
        if pid in running or pgid in running or pgid == own_group:
            continue
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass


def _children(parent: int) -> list[tuple[int, int]]:
    """(pid, process group) of `parent`'s children, from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stat:
                text = stat.read()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        if int(fields[1]) == parent:
            found.append((int(entry), int(fields[2])))
    return found
