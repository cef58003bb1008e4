"""Where a job's child was when its time was up: its Python stack, asked for before the kill.

A timeout that says only "stopped after 30 s" leaves the user to guess which loop never ended;
pytest-timeout prints the stack. The child registers `faulthandler` on STACK_SIGNAL (isolation.py),
which dumps its main thread's stack to its captured output even inside a tight loop or a C call
that holds the GIL; the worker sends the signal, reads the dump for at most GRACE s and then kills.
"""

from __future__ import annotations

import os
import re
import select
import signal
import time

from ..wire.records import Frame

STACK_SIGNAL: signal.Signals | None = getattr(signal, "SIGUSR1", None)  # none on Windows
GRACE = 0.5  # seconds the worker waits for the dump: a child that cannot answer is killed anyway
QUIET = 0.05  # seconds without more output after the header: the dump is complete
HEADER = b"Stack (most recent call first):"
_FRAME = re.compile(r'^\s+File "(?P<path>.+)", line (?P<line>\d+) in (?P<name>.+)$')


def ask_stack(pid: int, output_fd: int) -> tuple[bytes, bytes]:
    """Signal the child and read its output until the dump is complete: (output before, dump)."""
    if STACK_SIGNAL is None:
        return b"", b""
    try:
        os.kill(pid, STACK_SIGNAL)
    except (ProcessLookupError, PermissionError):
        return b"", b""
    data = bytearray()
    end = time.monotonic() + GRACE
    while (left := end - time.monotonic()) > 0:
        wait = min(left, QUIET) if HEADER in data else left
        if not select.select([output_fd], [], [], wait)[0]:
            if HEADER in data:
                break
            continue
        try:
            chunk = os.read(output_fd, 1 << 16)
        except (BlockingIOError, OSError):
            continue
        if not chunk:
            break
        data += chunk
    at = data.rfind(HEADER)
    if at < 0:
        return bytes(data), b""
    return bytes(data[:at]), bytes(data[at:])


def parse_stack(dump: bytes) -> list[Frame]:
    """The dump's frames, innermost first (as faulthandler writes them)."""
    frames: list[Frame] = []
    for line in dump.decode("utf-8", errors="replace").splitlines()[1:]:
        match = _FRAME.match(line)
        if match is None:
            break  # the end of the dump: what follows is the child's own output
        frames.append({"path": match["path"], "line": int(match["line"]), "name": match["name"]})
    return frames
