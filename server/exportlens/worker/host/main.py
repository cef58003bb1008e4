"""The long-lived worker's start: imports torch once, says "ready" (or why not), then loops.

It is ready once torch and what every export imports are imported: the first job forks at
once, and the warm-up runs between jobs (all of it first with EXPORTLENS_WARM_FIRST=1: the
CLI's).  Protocol messages go to a private duplicate of fd 1; fd 1 itself is pointed at stderr
so nothing else can corrupt the stream.  The loop itself is loop.py.
"""

from __future__ import annotations

import gc
import os
import sys
import time

from ..core.isolation import become_subreaper, die_with_parent
from .loop import Worker
from .warmup import WarmUp, prepare_for_forking, torch_origin


def main() -> None:
    die_with_parent()
    become_subreaper()
    proto_fd = os.dup(1)
    os.dup2(2, 1)  # stray prints in this process go to stderr, never to the protocol
    started = time.monotonic()
    gc.disable()  # until prepare_for_forking: the imports make millions of objects, no garbage
    worker = Worker(proto_fd, max_parallel=int(os.environ.get("EXPORTLENS_PARALLEL", "2")))
    try:
        import torch

        prepare_for_forking()
        torch.export.export  # noqa: B018 - a torch without it cannot be used: fatal now, not per job
        first = os.environ.get("EXPORTLENS_WARM_FIRST", "")  # "1": all; else the tracers to warm
        worker.warmup = WarmUp(None if first in ("", "1") else frozenset(first.split(",")))
        while first and not worker.warmup.done:
            worker.warmup.step()  # the CLI's: its many jobs come at once, none would wait less
        worker.last_job = worker.ready_at = time.monotonic()  # a first job comes at once
    except BaseException as exc:  # noqa: BLE001 - any failure here is reported, not raised
        torch_version = getattr(sys.modules.get("torch"), "__version__", None)  # for "too old"
        worker.send(
            {
                "event": "fatal",
                "message": f"{type(exc).__name__}: {exc}",
                "python": sys.executable,
                "torch": str(torch_version).split("+")[0] if torch_version else None,
                "torch_origin": torch_origin(),  # for "shadowed by"
            }
        )
        return
    worker.send(
        {
            "event": "ready",
            "torch": torch.__version__.split("+")[0],
            "python": ".".join(map(str, sys.version_info[:3])),
            "pid": os.getpid(),
            "warmup_seconds": time.monotonic() - started,
        }
    )
    worker.loop()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # nothing left to write: skip the interpreter's teardown of torch (~0.5 s)
