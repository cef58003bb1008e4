"""Spare children forked while the user types (issue 18, item 6): there should be none.

    PYTHONPATH=server python bench/spares.py [--edits 20]

The benchmark MLP is checked through the engine as the server checks a buffer being typed
into: a new version every 0.2 s (faster than the worker's quiet interval, worker/host/spare.py
QUIET), each superseding the last.  The worker says on stderr when it forks a spare
(WorkerProcess.spares_forked counts): the figure is how many were forked during the typing,
and, as its peer, whether one was forked in the pause after it (a spare for the next edit).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))  # exportlens, from a checkout

from exportlens.check import CheckOptions, check_file
from exportlens.engine import Engine, EngineOptions
from exportlens.worker.host.spare import QUIET
from models import mlp

TYPING = 0.2  # s between two versions of the buffer


@dataclass
class SparesReport:
    edits: int
    interval_s: float
    quiet_s: float
    during: int  # spares forked while the versions kept coming
    after: int  # spares forked in the pause after them


async def measure_spares(edits: int, engine: Engine | None = None) -> SparesReport:
    own = engine is None
    engine = engine or Engine(EngineOptions(timeout=120.0))
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = str(mlp().write(Path(tmp), strict=False))
            source = Path(path).read_text(encoding="utf-8")
            options = CheckOptions(roots=[tmp])
            await check_file(engine, path, source, options)
            worker = await engine.worker()
            while not worker.warm:  # the deferred warm-up's spare is not the typing's
                await asyncio.sleep(0.1)
            await asyncio.sleep(QUIET + 1.0)
            before = worker.spares_forked
            tasks = []
            for n in range(edits):
                text = source.replace("WIDTH = 1024", f"WIDTH = {1024 + n}")
                tasks.append(asyncio.create_task(check_file(engine, path, text, options)))
                await asyncio.sleep(TYPING)
            during = worker.spares_forked - before
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await asyncio.sleep(QUIET + 1.0)
            after = worker.spares_forked - before - during
    finally:
        if own:
            await engine.close()
    return SparesReport(edits, TYPING, QUIET, during, after)


def table(r: SparesReport) -> str:
    return (
        f"{r.edits} versions of the MLP, one every {r.interval_s:g} s (quiet interval {r.quiet_s:g} s):"
        f" {r.during} spare(s) forked while they came, {r.after} in the pause after"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--edits", type=int, default=20)
    args = parser.parse_args()
    print(table(asyncio.run(measure_spares(args.edits))))


if __name__ == "__main__":
    main()
