"""`exportlens check -v` with a daemon: the worker's stderr lines, which the daemon logs
(daemon.py), shown as a run's own worker's are (process.py logs them as `exportlens.worker`)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

WORKER_LOG = logging.getLogger("exportlens.worker")  # process.py's: a worker's stderr lines
RELAY_LIMIT = 1024 * 1024  # bytes of the daemon's log read back


def log_size(path: Path) -> int:
    """Where the daemon's log ends now: a client relays what comes after."""
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def relay_worker_lines(path: Path, since: int) -> None:
    """The worker's lines the daemon logged after `since` (while the client was connected), in
    verbose runs only; a line another client caused at the same time may be among them."""
    if not WORKER_LOG.isEnabledFor(logging.DEBUG):
        return
    try:
        with open(path, "rb") as daemon_log:
            daemon_log.seek(since)
            lines = daemon_log.read(RELAY_LIMIT).decode("utf-8", errors="replace").splitlines()
    except OSError:
        return
    for line in lines:
        said = line.partition(f" {WORKER_LOG.name}: ")[2]
        if said:
            WORKER_LOG.debug("%s", said)
