"""ExportLens latency benchmark: the cold script, the warm floor and the engine, in one run.

For each model (an MLP and a small transformer, built from `torch.nn` only) and
each tracer (non-strict, strict) it measures:

- cold: `python model.py` in a fresh subprocess, the file exporting itself
  (what a user runs today), median over the runs; each run is followed by a share of the
  engine's jobs, so the ratio compares the same minutes of a machine whose speed drifts;
- floor: `torch.export.export` in an already-warm process after one warm-up
  export of the same model, median;
- engine: one job = a fresh `check_file` of the model file through the real
  `Engine` after its worker is up, p50 and p95 of the caller's wall clock
  (also the worker's own p50 for the job, fork to result);

plus the worker's startup time and its idle RSS (next to the floor process's RSS: a plain
torch process that has exported), and the caller's RSS.
The machine may be shared and noisy: everything comes from one run, so read
the ratios.  Jobs run one at a time, so these are latencies, not throughput.

    python bench/run.py [--quick] [--json FILE] [--layers N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

try:
    import exportlens  # noqa: F401
except ImportError:  # run from a checkout without PYTHONPATH=server
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "server"))

from exportlens.check import CheckOptions, check_file
from exportlens.engine import Engine, EngineOptions
from measure import FloorTarget, floor_times, median, percentile, rss_mb, time_subprocess
from models import ModelSpec, mlp, transformer

MODES = ("non-strict", "strict")
SPARE_WARM = 1.5  # s after a job: the worker's spare is forked and warm, then idle


@dataclass
class Repeats:
    cold: int
    floor: int
    jobs: int
    discarded: int  # engine jobs run first and not counted

    @staticmethod
    def of(quick: bool) -> Repeats:
        if quick:
            return Repeats(cold=1, floor=2, jobs=3, discarded=1)
        return Repeats(cold=3, floor=10, jobs=30, discarded=1)


@dataclass
class Row:
    """Figures for one model in one tracer mode; seconds unless named otherwise."""

    model: str
    mode: str
    cold_s: float
    floor_s: float
    engine_p50_s: float
    engine_p95_s: float
    worker_p50_s: float  # the worker's own time for a job: fork to result

    @property
    def cold_over_engine(self) -> float:
        return self.cold_s / self.engine_p50_s

    @property
    def overhead_ms(self) -> float:
        return (self.engine_p50_s - self.floor_s) * 1000.0


@dataclass
class Report:
    repeats: Repeats
    models: dict[str, str]
    torch: str
    python: str
    worker_startup_s: float  # caller's wall clock until the worker is ready
    worker_warmup_s: float  # the worker's own account (import torch + warm-up exports)
    worker_rss_idle_mb: float  # after start-up, before any job
    worker_rss_after_mb: float  # after every job (children are forked, so it should not grow)
    floor_rss_mb: float  # the floor process at its end: python + torch after its exports
    caller_rss_mb: float
    rows: list[Row] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        figures: dict[str, Any] = {
            "worker_startup_s": self.worker_startup_s,
            "worker_warmup_s": self.worker_warmup_s,
            "worker_rss_idle_mb": self.worker_rss_idle_mb,
            "worker_rss_after_mb": self.worker_rss_after_mb,
            "floor_rss_mb": self.floor_rss_mb,
            "caller_rss_mb": self.caller_rss_mb,
        }
        ratios: dict[str, Any] = {}
        for row in self.rows:
            figures.setdefault(row.model, {})[row.mode] = {
                k: v for k, v in asdict(row).items() if k not in ("model", "mode")
            }
            ratios.setdefault(row.model, {})[row.mode] = {
                "cold_over_engine": row.cold_over_engine,
                "overhead_ms": row.overhead_ms,
            }
        return {
            "meta": {
                "repeats": asdict(self.repeats),
                "models": self.models,
                "torch": self.torch,
                "python": self.python,
                "machine": platform.machine(),
            },
            "figures": figures,  # measured: every one is a positive number
            "ratios": ratios,  # derived: overhead_ms may come out negative on a noisy machine
        }


async def engine_job(engine: Engine, path: Path, class_name: str, mode: str | None) -> tuple[float, float]:
    """One fresh check of the file's module: (caller wall seconds, worker seconds).

    Raises unless the module exported cleanly: a failing check would time something else.
    """
    options = CheckOptions(mode=mode, roots=[str(path.parent)])
    started = time.perf_counter()
    result = await check_file(engine, str(path), None, options, only={class_name})
    seconds = time.perf_counter() - started
    statuses = [(m.name, m.status) for m in result.modules]
    if statuses != [(class_name, "exported")] or result.diagnostics:
        problems = [(d.code, d.message[:300]) for d in result.diagnostics]
        raise RuntimeError(f"{path.name} ({mode}) did not export cleanly: {statuses} {problems}")
    return seconds, result.modules[0].seconds


async def measure_row(
    engine: Engine, path: Path, spec: ModelSpec, mode: str, floor: list[float], repeats: Repeats, say: Any
) -> Row:
    say(f"{spec.key} {mode}: cold x{repeats.cold}, each beside engine x{repeats.jobs // repeats.cold}")
    cold: list[float] = []
    jobs: list[tuple[float, float]] = []
    # Rounds of one cold run and a share of the jobs: both see the same minutes of this machine,
    # whose speed drifts. Each round's first jobs are not counted (the first finds the spare the
    # worker warmed during the cold run, as no job back to back does).
    for _ in range(repeats.cold):
        await asyncio.sleep(SPARE_WARM)  # the worker's spare is forked and warm: idle while the script runs
        cold.append(await time_subprocess([sys.executable, str(path)], path.parent))
        for _ in range(repeats.discarded):
            await engine_job(engine, path, spec.class_name, mode)
        jobs += [
            await engine_job(engine, path, spec.class_name, mode) for _ in range(repeats.jobs // repeats.cold)
        ]
    walls = [wall for wall, _ in jobs]
    return Row(
        model=spec.key,
        mode=mode,
        cold_s=median(cold),
        floor_s=median(floor),
        engine_p50_s=median(walls),
        engine_p95_s=percentile(walls, 95),
        worker_p50_s=median([worker for _, worker in jobs]),
    )


async def run_benchmark(quick: bool, layers: int, say: Any, engine: Engine | None = None) -> Report:
    """Every figure above. `engine`: one whose worker is not started yet (its start-up is timed),
    left open for the caller; by default a fresh one, closed at the end."""
    repeats = Repeats.of(quick)
    specs = [mlp(), transformer(layers)]
    owned = engine is None
    engine = engine or Engine(EngineOptions(timeout=300.0))
    try:
        say("starting the worker")
        started = time.perf_counter()
        worker = await engine.worker()
        startup = time.perf_counter() - started
        await asyncio.sleep(0.5)  # let the worker settle into its idle loop
        idle_rss = rss_mb(worker.pid)
        with tempfile.TemporaryDirectory(prefix="exportlens-bench-") as tmp:
            folder = Path(tmp)
            cases = [(spec, mode, spec.write(folder, mode == "strict")) for spec in specs for mode in MODES]
            say(f"floor: x{repeats.floor} per case, one process")
            targets = [FloorTarget(path, s.class_name, s.inputs, mode == "strict") for s, mode, path in cases]
            floor = await floor_times(targets, repeats.floor)
            rows = [
                await measure_row(engine, path, spec, mode, seconds, repeats, say)
                for (spec, mode, path), seconds in zip(cases, floor.seconds, strict=True)
            ]
        after_rss = rss_mb(worker.pid)
        return Report(
            repeats=repeats,
            models={spec.key: spec.label for spec in specs},
            torch=str(engine.info.get("torch", "?")),
            python=str(engine.info.get("python", "?")),
            worker_startup_s=startup,
            worker_warmup_s=float(worker.info.get("warmup_seconds", 0.0)),
            worker_rss_idle_mb=idle_rss,
            worker_rss_after_mb=after_rss,
            floor_rss_mb=floor.rss_mb,
            caller_rss_mb=rss_mb(),
            rows=rows,
        )
    finally:
        if owned:
            await engine.close()


def table(report: Report) -> str:
    header = (
        "model",
        "mode",
        "cold s",
        "floor ms",
        "engine p50 ms",
        "p95 ms",
        "worker p50 ms",
        "cold/engine",
        "overhead ms",
    )
    lines = [header]
    for row in report.rows:
        lines.append(
            (
                row.model,
                row.mode,
                f"{row.cold_s:.2f}",
                f"{row.floor_s * 1000:.0f}",
                f"{row.engine_p50_s * 1000:.0f}",
                f"{row.engine_p95_s * 1000:.0f}",
                f"{row.worker_p50_s * 1000:.0f}",
                f"{row.cold_over_engine:.1f}x",
                f"{row.overhead_ms:+.0f}",
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    out = []
    for n, line in enumerate(lines):
        pairs = enumerate(zip(line, widths, strict=True))
        cells = [cell.ljust(width) if i < 2 else cell.rjust(width) for i, (cell, width) in pairs]
        out.append("  ".join(cells).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    r = report.repeats
    out += [
        "",
        f"torch {report.torch}, python {report.python}; "
        f"runs: cold {r.cold}, floor {r.floor} (after 1 warm-up), "
        f"engine {r.jobs} jobs (after {r.discarded} discarded)",
        *(f"{key}: {label}" for key, label in report.models.items()),
        f"worker startup: {report.worker_startup_s:.2f} s "
        f"(the worker's own account: {report.worker_warmup_s:.2f} s)",
        f"worker RSS: {report.worker_rss_idle_mb:.0f} MiB idle after start-up, "
        f"{report.worker_rss_after_mb:.0f} MiB after all jobs; "
        f"floor process (torch, after exporting): {report.floor_rss_mb:.0f} MiB",
        f"caller RSS: {report.caller_rss_mb:.0f} MiB (engine side, no torch)",
        "cold = `python model.py` exporting itself, median; floor = warm in-process export, median;",
        "engine = caller wall clock per check_file job, one job at a time; worker = fork to result;",
        "overhead = engine p50 - floor.",
    ]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="few repetitions: a smoke test")
    parser.add_argument("--json", metavar="FILE", help="also write the figures to FILE")
    parser.add_argument(
        "--layers", type=int, default=None, help="transformer layers (default 4; 2 with --quick)"
    )
    args = parser.parse_args(argv)
    layers = args.layers or (2 if args.quick else 4)

    def say(message: str) -> None:
        print(f"[bench] {message}", file=sys.stderr, flush=True)

    report = asyncio.run(run_benchmark(args.quick, layers, say))
    print(table(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report.to_json(), indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
