"""Where a worker daemon listens, and who may talk to it (docs/daemon.md).

One daemon per (interpreter and its packages, ExportLens's code, worker flags): the results
store's environment digest (persist/fingerprint.py) names its socket. The socket is 0600 in a
0700 folder of the user's, and both ends check the other's uid (SO_PEERCRED, getpeereid): a
folder, a socket or a peer that is not the user's own is never talked to.
"""

from __future__ import annotations

import hashlib
import os
import socket
import stat
import struct
import sys
from dataclasses import dataclass
from pathlib import Path

from ..early_worker import worker_flags
from ..persist.store import default_folder

# AF_UNIX paths longer than this cannot be bound (108 on Linux, 104 on macOS, with the NUL).
MAX_SOCKET_PATH = 100


class DaemonUnavailable(Exception):
    """No daemon can be used here: the engine runs a worker of its own (the one-off way)."""


@dataclass(frozen=True)
class DaemonPaths:
    folder: Path
    key: str

    @property
    def socket(self) -> Path:
        return self.folder / f"{self.key}.sock"

    @property
    def lock(self) -> Path:
        return self.folder / f"{self.key}.lock"

    @property
    def log(self) -> Path:
        return self.folder / f"{self.key}.log"

    @property
    def status(self) -> Path:  # what it is, for `exportlens daemon status` (daemon_status.py)
        return self.folder / f"{self.key}.json"


def runtime_folder() -> Path:
    """$EXPORTLENS_RUNTIME_DIR, else $XDG_RUNTIME_DIR/exportlens, else `run` in the cache folder."""
    if folder := os.environ.get("EXPORTLENS_RUNTIME_DIR"):
        return Path(folder)
    if runtime := os.environ.get("XDG_RUNTIME_DIR"):
        return Path(runtime) / "exportlens"
    return default_folder() / "run"


# Flags that matter only before a worker's first job (the CLI warms up first, the editor does
# not): a running daemon serves both alike, so the editor and the CLI share one.
NOT_IN_KEY = ("EXPORTLENS_WARM_FIRST",)


def daemon_key(environment_digest: str, flags: dict[str, str]) -> str:
    """The daemon's name: its interpreter's packages, ExportLens's code (the digest) and flags."""
    if not environment_digest:
        raise DaemonUnavailable("the interpreter could not be asked for its packages")
    named = sorted((k, v) for k, v in flags.items() if k not in NOT_IN_KEY)
    parts = [environment_digest, *(f"{k}={v}" for k, v in named)]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:20]


def secure_folder(folder: Path) -> Path:
    """The folder, made if missing, checked to be a real folder of this user's that only they can
    enter. One of theirs that others could write to is locked again and emptied (a socket put
    there by someone else must not be connected to); one of someone else's is refused."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise DaemonUnavailable(f"{folder} is not a folder of this user's: no daemon")
    if stat.S_IMODE(info.st_mode) & 0o077:
        os.chmod(folder, 0o700)
        for entry in os.scandir(folder):
            if entry.is_dir(follow_symlinks=False):
                continue
            os.unlink(entry.path)
    if len(str(DaemonPaths(folder, "0" * 20).socket)) > MAX_SOCKET_PATH:
        raise DaemonUnavailable(f"{folder} is too long a path for a Unix socket: no daemon")
    return folder


def socket_file_ok(path: Path) -> bool:
    """A socket of this user's that no one else can open (else it is never connected to)."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return (
        stat.S_ISSOCK(info.st_mode) and info.st_uid == os.getuid() and not stat.S_IMODE(info.st_mode) & 0o077
    )


def peer_credentials(sock: socket.socket) -> tuple[int | None, int | None]:
    """(pid, uid) of the process at the other end; None where the platform cannot say."""
    if hasattr(socket, "SO_PEERCRED"):  # Linux
        pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
        return pid, uid
    if sys.platform == "darwin":
        # LOCAL_PEERCRED (1) at level SOL_LOCAL (0): struct xucred {u_int version; uid_t uid; ...}
        raw = sock.getsockopt(0, 1, 76)
        _version, uid = struct.unpack("II", raw[:8])
        return None, uid
    return None, None


def peer_allowed(sock: socket.socket, uid: int | None = None) -> bool:
    """The peer runs as `uid` (this process's by default); an unknown peer is refused."""
    _pid, peer_uid = peer_credentials(sock)
    return peer_uid is not None and peer_uid == (os.getuid() if uid is None else uid)


# What else the worker reads of its environment (worker/host/children.py, spare.py), and what the
# interpreter's imports read (a torch.py first on PYTHONPATH is another torch; the daemon's own
# environment probe sees them only as the daemon was started): a daemon started with another
# value is another daemon.
WORKER_ENVIRONMENT = (
    "EXPORTLENS_START",
    "EXPORTLENS_SPARE",
    "EXPORTLENS_SPARE_QUIET",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONSAFEPATH",
    "PYTHONNOUSERSITE",
    "PYTHONUSERBASE",
)


def flags_for(parallel: int, spares: bool, warm_first: bool) -> dict[str, str]:
    """The worker's flags that make daemons differ (one daemon per set)."""
    flags = worker_flags(parallel, spares, warm_first)
    flags.pop("PYTHONUNBUFFERED", None)
    # as the worker's environment is made (process.py): the flags over the caller's variables
    return {name: os.environ[name] for name in WORKER_ENVIRONMENT if name in os.environ} | flags
