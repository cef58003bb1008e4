"""Timing helpers for the benchmark, and the in-process export "floor".

Imported by `bench/run.py` without torch: the caller's memory is one of the
figures.  Run as a script (`python bench/measure.py floor ...`) it is the
floor process: it imports torch once and, for each model file given, loads it
without running its `__main__` block, exports the model once to warm up and
then times more exports, printing all the seconds as one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import runpy
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def percentile(values: Sequence[float], pct: float) -> float:
    """Linear interpolation between closest ranks (numpy's default)."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("no values")
    rank = (len(ordered) - 1) * pct / 100.0
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def rss_mb(pid: int | None = None) -> float:
    """Resident set size (VmRSS) of a process, in MiB; this process by default."""
    status = Path(f"/proc/{pid if pid is not None else 'self'}/status").read_text(encoding="utf-8")
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    raise RuntimeError(f"no VmRSS in /proc/{pid}/status")


async def time_subprocess(argv: list[str], cwd: Path) -> float:
    """Wall-clock seconds of one subprocess run; raises if it fails."""

    def run() -> float:
        started = time.perf_counter()
        proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - started
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} exited with {proc.returncode}:\n{proc.stderr[-2000:]}")
        return seconds

    return await asyncio.to_thread(run)


@dataclass(frozen=True)
class FloorTarget:
    """A model file to export in the floor process, and how."""

    path: Path
    class_name: str
    inputs: str  # Python expression for the example inputs, evaluated in the file's globals
    strict: bool


async def floor_times(targets: Sequence[FloorTarget], runs: int) -> list[list[float]]:
    """For each target, the seconds of `runs` warm in-process exports, all in one fresh floor process.

    Each target gets its own warm-up export first, so every figure is a warm one.
    """
    spec = [
        {"path": str(t.path), "class": t.class_name, "inputs": t.inputs, "strict": t.strict} for t in targets
    ]
    argv = [sys.executable, str(Path(__file__).resolve()), "floor", json.dumps(spec), "--runs", str(runs)]

    def run() -> list[list[float]]:
        proc = subprocess.run(argv, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"the floor process failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
        result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
        return [[float(s) for s in seconds] for seconds in result["seconds"]]

    return await asyncio.to_thread(run)


def floor_main(argv: list[str]) -> None:
    """The floor process: per target, one warm-up export, then `--runs` timed ones."""
    parser = argparse.ArgumentParser(prog="measure.py floor")
    parser.add_argument("targets", help='JSON list of {"path", "class", "inputs", "strict"}')
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args(argv)

    import torch

    results = []
    for target in json.loads(args.targets):
        names = runpy.run_path(target["path"], run_name="exportlens_bench_model")  # not __main__
        cls, strict = names[target["class"]], bool(target["strict"])
        example = eval(target["inputs"], names)
        torch.export.export(cls(), example, strict=strict)  # warm-up
        seconds = []
        for _ in range(args.runs):
            model = cls()
            started = time.perf_counter()
            torch.export.export(model, example, strict=strict)
            seconds.append(time.perf_counter() - started)
        results.append(seconds)
    print(json.dumps({"seconds": results, "pid": os.getpid()}))


if __name__ == "__main__":
    if sys.argv[1:2] != ["floor"]:
        sys.exit("usage: measure.py floor TARGETS_JSON [--runs N]")
    floor_main(sys.argv[2:])
