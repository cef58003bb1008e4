"""Stop the worker daemons of a runtime folder (`exportlens daemon stop`, tests' teardown, the
bench): a daemon also exits on its own when idle (daemon.py)."""

from __future__ import annotations

import os
import signal
import socket
import time
from collections.abc import Collection
from pathlib import Path

from .daemon_paths import peer_allowed, peer_credentials


def stop_daemons(
    folder: os.PathLike[str] | str, wait: float = 10.0, keys: Collection[str] | None = None
) -> list[int]:
    """Stop every daemon listening in `folder` (those named by `keys`, if given): the pids
    stopped, gone when this returns (or after `wait` s). Only a process of this user's behind
    one of the sockets is signalled: the pid comes from the socket's peer, never from a file."""
    pids = []
    for path in Path(folder).glob("*.sock"):
        if keys is not None and path.stem not in keys:
            continue
        with socket.socket(socket.AF_UNIX) as sock:
            try:
                sock.connect(str(path))
            except OSError:
                continue
            pid, _uid = peer_credentials(sock)
            if pid and peer_allowed(sock):
                os.kill(pid, signal.SIGTERM)
                pids.append(pid)
    deadline = time.monotonic() + wait
    for pid in pids:
        while daemon_running(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
    return pids


def daemon_running(pid: int) -> bool:
    """The process runs (a zombie, exited but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return False
