"""What each worker daemon of this user is (`exportlens daemon status`, docs/daemon.md).

A daemon writes `<key>.json` beside its socket (0600, in the 0700 runtime folder of the user's):
its pid, interpreter, environment, torch, when it started and was last used. Reading it connects
to nothing, so asking never counts as a use and never keeps a daemon from going idle. Memory is
read from the processes themselves (the daemon, its worker and the worker's children).
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from .daemon_paths import DaemonPaths
from .daemon_stop import daemon_running

log = logging.getLogger("exportlens.daemon")


@dataclass(frozen=True)
class DaemonStatus:
    pid: int
    python: str  # the interpreter it was started with
    prefix: str  # its environment (sys.prefix): every spelling of that interpreter shares it
    torch: str
    worker_pid: int | None
    started: float  # wall-clock seconds
    last_used: float  # wall-clock seconds
    clients: int  # connections served
    retiring: str  # why it takes no new client ("" while it does)
    key: str = ""

    def idle_seconds(self, now: float | None = None) -> float:
        return max(0.0, (time.time() if now is None else now) - self.last_used)


class StatusFile:
    """The daemon's `<key>.json`, rewritten in one step (a reader never sees half a file) when
    what it says changed; its last use at most every half second."""

    def __init__(self, paths: DaemonPaths) -> None:
        self.path = paths.status
        self.said: DaemonStatus | None = None

    def say(self, status: DaemonStatus) -> None:
        said = self.said
        if said is not None and status == replace(said, last_used=status.last_used):
            if abs(status.last_used - said.last_used) < 0.5:
                return
        partial = self.path.with_suffix(".partial")
        try:
            fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "w") as out:
                json.dump(asdict(status), out)
            os.replace(partial, self.path)
            self.said = status
        except OSError as exc:
            log.warning("cannot write the status file %s: %s", self.path, exc)

    def remove(self) -> None:
        for path in (self.path, self.path.with_suffix(".partial")):
            path.unlink(missing_ok=True)


def running_daemons(folder: Path) -> list[DaemonStatus]:
    """The daemons whose status file is in `folder` and whose process and socket are still
    there, oldest first. A file a dead daemon left (killed -9) is removed."""
    found = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        try:
            record = json.loads(path.read_text())
            status = DaemonStatus(**{**record, "key": path.stem})
        except (OSError, ValueError, TypeError):
            continue
        if daemon_running(status.pid) and path.with_suffix(".sock").exists():
            found.append(status)
        else:
            path.unlink(missing_ok=True)
    return sorted(found, key=lambda s: s.started)


def memory_bytes(pid: int) -> int | None:
    """Resident memory of `pid` and all its descendants (None where it cannot be read)."""
    table = _process_table()
    if table is None:
        return None
    children: dict[int, list[int]] = {}
    for child, (parent, _rss) in table.items():
        children.setdefault(parent, []).append(child)
    total, todo, seen = 0, [pid], set()
    while todo:
        current = todo.pop()
        if current in seen or current not in table:
            continue
        seen.add(current)
        total += table[current][1]
        todo += children.get(current, [])
    return total if seen else None


def _process_table() -> dict[int, tuple[int, int]] | None:
    """pid -> (parent pid, resident bytes): /proc on Linux, `ps` elsewhere."""
    proc = Path("/proc")
    if (proc / "self" / "stat").exists():
        page = os.sysconf("SC_PAGE_SIZE")
        table = {}
        for entry in proc.iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # exited meanwhile
            table[int(entry.name)] = (int(fields[1]), int(fields[21]) * page)
        return table
    try:
        listing = subprocess.run(
            ["/bin/ps", "-A", "-o", "pid=,ppid=,rss="], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    rows = (line.split() for line in listing.stdout.splitlines())
    return {int(p): (int(pp), int(rss) * 1024) for p, pp, rss in (r for r in rows if len(r) == 3)}
