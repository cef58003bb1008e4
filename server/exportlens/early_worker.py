"""The worker started before the server's own imports (`exportlens serve --start-worker`).

The server's imports (pygls, lsprotocol: ~1.3 s of CPU, 1.8 s before their bytecode is cached)
and the worker's `import torch` (~5.5 s) are serial and independent: started first, the worker
imports torch on the other core while the server imports its libraries, and the engine adopts it
when it first needs a worker with the same command and options (engine/process.py); else it is
killed. The extension passes the flag only in a trusted workspace: the worker runs the
interpreter's torch. Stdlib only, and only this module and worker/wire/boot.py are imported first.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from .worker.wire.boot import BOOT

WORKER_DIR = Path(__file__).resolve().parent / "worker"
PARALLEL = 2  # exports at a time: engine.EngineOptions's default too

_early: tuple[list[str], dict[str, str], subprocess.Popen[bytes]] | None = None


def worker_argv(python: str) -> list[str]:
    """The command that runs the worker in `python` (worker/wire/boot.py loads it by location)."""
    return [python, "-c", BOOT, str(WORKER_DIR / "__init__.py"), str(WORKER_DIR), "host.main"]


def worker_flags(
    parallel: int, spares: bool, warm_first: bool, warm_tracers: tuple[str, ...] = ()
) -> dict[str, str]:
    """What the worker's environment adds to the caller's (read by worker/host/main.py, loop.py,
    spare.py and warmup.py). `warm_tracers`: the warm-up first is only theirs (else all of it)."""
    flags = {"EXPORTLENS_PARALLEL": str(parallel), "PYTHONUNBUFFERED": "1"}
    if not spares:
        flags["EXPORTLENS_SPARE"] = "0"
    if warm_first:
        flags["EXPORTLENS_WARM_FIRST"] = ",".join(warm_tracers) or "1"
    return flags


def start(python: str, parallel: int = PARALLEL, spares: bool = True, warm_first: bool = False) -> None:
    """Start the worker now, with the editor engine's options (engine.EngineOptions' defaults:
    tests/engine/test_early_worker.py); a failure to start is left to the engine's start."""
    global _early
    argv, flags = worker_argv(python), worker_flags(parallel, spares, warm_first)
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **flags},
        )
    except OSError:
        return
    _early = (argv, flags, proc)


def take(argv: list[str], flags: dict[str, str]) -> subprocess.Popen[bytes] | None:
    """The early worker if it runs this command with these flags; else None (and it is killed)."""
    global _early
    early, _early = _early, None
    if early is None:
        return None
    same, proc = early[0] == argv and early[1] == flags, early[2]
    if same and proc.poll() is None:
        return proc
    proc.kill()  # another interpreter or options: its stdin closes with it, its children die
    proc.wait()
    return None


def discard() -> None:
    """No engine will adopt it (an untrusted workspace): the early worker, if any, is killed."""
    take([], {})


def discard_if(argv: list[str], flags: dict[str, str]) -> None:
    """A worker daemon serves the engine that would have adopted the early worker (the same
    command and flags): it is killed. An early worker for another engine is left to that one."""
    if _early is not None and _early[0] == argv and _early[1] == flags:
        discard()
