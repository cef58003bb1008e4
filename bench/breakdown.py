"""Where an edit's milliseconds go, per stage, for the models of issue 18's edit targets.

    PYTHONPATH=server python bench/breakdown.py [--jobs 10] [--layers 4]

Each model is checked through the engine, as the server checks an edit after a pause (a warm
spare is waiting), `--jobs` times; the medians of the child's own stage timings (worker/child.py:
import of the user's file, building the module and its inputs, the export, the summary) are
shown next to the fork (spare hand-over) and what is left of the caller's wall clock: the
worker's relay, the result's JSON both ways, the diagnosis.  The warm in-process export is
measure.py's floor (not run here: run.py and lsp_latency.py show it).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))  # exportlens, from a checkout

from exportlens.check import CheckOptions, check_file
from exportlens.engine import Engine, EngineOptions
from exportlens.worker.spare import QUIET
from measure import median
from models import ModelSpec, mlp, transformer

STAGES = ("fork", "load", "inputs", "export", "summary")


async def breakdown(engine: Engine, spec: ModelSpec, mode: str, jobs: int) -> dict[str, float]:
    """Median ms per stage, `wall` (the caller's) and `rest` (wall minus the child's stages)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = spec.write(Path(tmp), strict=mode == "strict")
        options = CheckOptions(mode=mode, roots=[tmp])
        rows: list[dict[str, float]] = []
        for _ in range(jobs + 1):  # the first: caller-side imports
            await asyncio.sleep(QUIET + 0.6)  # the user's pause: the worker forks and warms a spare
            started = time.perf_counter()
            result = await check_file(engine, str(path), None, options, only={spec.class_name})
            wall = time.perf_counter() - started
            (module,) = result.modules
            assert module.status == "exported", (module.status, [d.message for d in result.diagnostics])
            timings = {k: module.timings.get(k, 0.0) * 1000 for k in STAGES}
            timings["wall"] = wall * 1000
            timings["rest"] = timings["wall"] - sum(timings[k] for k in STAGES)
            rows.append(timings)
    return {k: median([r[k] for r in rows[1:]]) for k in rows[0]}


Breakdown = list[tuple[str, str, dict[str, float]]]  # (model, mode, ms per stage)


async def measure(jobs: int, layers: int, engine: Engine | None = None) -> Breakdown:
    own = engine is None
    engine = engine or Engine(EngineOptions(timeout=300.0))
    try:
        first = mlp()
        with tempfile.TemporaryDirectory() as tmp:  # start and warm the worker
            await check_file(engine, str(first.write(Path(tmp), strict=False)), None, CheckOptions())
        worker = await engine.worker()
        while not worker.warm:
            await asyncio.sleep(0.1)
        out = []
        for spec, mode in ((mlp(), "non-strict"), (mlp(), "strict"), (transformer(layers), "non-strict")):
            out.append((spec.key, mode, await breakdown(engine, spec, mode, jobs)))
        return out
    finally:
        if own:
            await engine.close()


def table(rows: Breakdown) -> str:
    columns = (*STAGES, "rest", "wall")
    lines = [f"{'model':<12} {'mode':<10} " + " ".join(f"{k:>8}" for k in columns)]
    for model, mode, ms in rows:
        lines.append(f"{model:<12} {mode:<10} " + " ".join(f"{ms[k]:>8.1f}" for k in columns))
    lines.append("ms, medians; rest = wall - the child's stages: relay, JSON, diagnosis, asyncio")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=10)
    parser.add_argument("--layers", type=int, default=4)
    args = parser.parse_args()
    print(table(asyncio.run(measure(args.jobs, args.layers))))


if __name__ == "__main__":
    main()
