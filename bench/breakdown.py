"""Where an edit's milliseconds go, per stage, for the models of issue 18's edit targets.

    PYTHONPATH=server python bench/breakdown.py [--jobs 10] [--layers 4]

Each model is checked through the engine, as the server checks an edit after a pause (a warm
spare is waiting), `--jobs` times; the medians of the child's own stage timings (worker/job/child.py:
import of the user's file, building the module and its inputs, the export, the summary, the
eager pass that records what the file's part classes receive) are
shown next to the fork (spare hand-over) and what is left of the caller's wall clock: the
worker's relay, the result's JSON both ways, the diagnosis.  CPU, steadier than wall on a loaded
machine: `child cpu` is the job child's own (worker/job/child.py), `caller cpu` this process's during
the check (the engine's decode of the answer and the diagnosis: what the server spends).  `--view`
also builds the graph panel's view, as every check did before issue 18 (a panel open on the
module).  The warm in-process export is measure.py's floor (not run here: run.py and
lsp_latency.py show it).
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
from exportlens.worker.host.spare import QUIET
from measure import median
from models import ModelSpec, mlp, transformer

STAGES = ("fork", "load", "inputs", "export", "summary", "parts")


async def breakdown(
    engine: Engine, spec: ModelSpec, mode: str, jobs: int, view: bool = False
) -> dict[str, float]:
    """Median ms per stage, `wall` (the caller's) and `rest` (wall minus the child's stages)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = spec.write(Path(tmp), strict=mode == "strict")
        views = frozenset({(str(path), spec.class_name)}) if view else frozenset()
        options = CheckOptions(mode=mode, roots=[tmp], graph_views=views)
        rows: list[dict[str, float]] = []
        for _ in range(jobs + 1):  # the first: caller-side imports
            await asyncio.sleep(QUIET + 0.6)  # the user's pause: the worker forks and warms a spare
            started, cpu = time.perf_counter(), time.process_time()
            result = await check_file(engine, str(path), None, options, only={spec.class_name})
            wall, cpu = time.perf_counter() - started, time.process_time() - cpu
            (module,) = result.modules
            assert module.status == "exported", (module.status, [d.message for d in result.diagnostics])
            timings = {k: module.timings.get(k, 0.0) * 1000 for k in STAGES}
            timings["wall"] = wall * 1000
            timings["child cpu"] = module.timings.get("cpu", 0.0) * 1000
            timings["caller cpu"] = cpu * 1000
            timings["rest"] = timings["wall"] - sum(timings[k] for k in STAGES)
            rows.append(timings)
    return {k: median([r[k] for r in rows[1:]]) for k in rows[0]}


Breakdown = list[tuple[str, str, dict[str, float]]]  # (model, mode, ms per stage)


async def measure(jobs: int, layers: int, engine: Engine | None = None, view: bool = False) -> Breakdown:
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
            out.append((spec.key, mode, await breakdown(engine, spec, mode, jobs, view)))
        return out
    finally:
        if own:
            await engine.close()


def table(rows: Breakdown) -> str:
    columns = (*STAGES, "rest", "wall", "child cpu", "caller cpu")
    lines = [f"{'model':<12} {'mode':<10} " + " ".join(f"{k:>10}" for k in columns)]
    for model, mode, ms in rows:
        lines.append(f"{model:<12} {mode:<10} " + " ".join(f"{ms[k]:>10.1f}" for k in columns))
    lines.append("ms, medians; rest = wall - the child's stages: relay, JSON, diagnosis, asyncio;")
    lines.append("child cpu: the job child's; caller cpu: this process's (decode, diagnosis)")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=10)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--view", action="store_true", help="build the graph panel's view too")
    args = parser.parse_args()
    print(table(asyncio.run(measure(args.jobs, args.layers, view=args.view))))


if __name__ == "__main__":
    main()
