"""Timing helpers for the benchmark, and the in-process export "floor".

Imported by the bench scripts without torch: the caller's memory is one of the
figures.  Run as a script (`python bench/measure.py floor ...`) it is the
floor process: it imports torch once and, for each model file given, loads it
without running its `__main__` block, exports the model once to warm up and
then times more exports, printing all the seconds (and its own RSS) as one JSON line.
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


def process_table() -> tuple[dict[int, int], dict[int, list[int]]]:
    """Every live process's CPU ticks (its own and its reaped children's), and each one's children."""
    ticks: dict[int, int] = {}
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text(encoding="utf-8")
        except OSError:  # gone meanwhile
            continue
        fields = stat.rsplit(")", 1)[1].split()  # after "pid (comm)": field 3 (state) onwards
        ticks[int(entry.name)] = sum(int(t) for t in fields[11:15])
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    return ticks, children


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds used so far by a process and all its descendants, the finished ones included.

    Each process counts its own time and that of the children it has reaped (utime, stime,
    cutime, cstime); a live process's time is not in its parent's yet, so summing over the
    live tree counts everything once.  The difference over a check is the CPU its jobs used,
    whenever the worker forked (a spare warmed in advance counts before the check, not in it)
    and whenever it reaps them.
    """
    ticks, children = process_table()
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        total += ticks.get(current, 0)
        todo += children.get(current, [])
    return total / os.sysconf("SC_CLK_TCK")


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


@dataclass(frozen=True)
class Floor:
    """What the floor process measured."""

    seconds: list[list[float]]  # per target, the seconds of each warm export
    rss_mb: float  # the floor process's RSS at the end: a plain torch process after exporting


async def floor_times(targets: Sequence[FloorTarget], runs: int) -> Floor:
    """For each target, the seconds of `runs` warm in-process exports, all in one fresh floor process.

    Each target gets its own warm-up export first, so every figure is a warm one.
    """
    spec = [
        {"path": str(t.path), "class": t.class_name, "inputs": t.inputs, "strict": t.strict} for t in targets
    ]
    argv = [sys.executable, str(Path(__file__).resolve()), "floor", json.dumps(spec), "--runs", str(runs)]

    def run() -> Floor:
        proc = subprocess.run(argv, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"the floor process failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
        result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
        seconds = [[float(s) for s in per_target] for per_target in result["seconds"]]
        return Floor(seconds, float(result["rss_mb"]))

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
    print(json.dumps({"seconds": results, "pid": os.getpid(), "rss_mb": rss_mb()}))


class FloorServer:
    """A floor process kept alive: asked for a few warm exports of a target at a time, so the
    reference is measured in the same minutes as what it is compared with (this machine's speed
    drifts from one minute to the next; a reference taken minutes apart compared other machines).

    `async with FloorServer(targets) as floor: seconds = await floor.exports(index, n)`.
    """

    def __init__(self, targets: Sequence[FloorTarget]) -> None:
        self.spec = json.dumps(
            [
                {"path": str(t.path), "class": t.class_name, "inputs": t.inputs, "strict": t.strict}
                for t in targets
            ]
        )
        self.proc: asyncio.subprocess.Process | None = None
        self.rss_mb = 0.0

    async def __aenter__(self) -> FloorServer:
        argv = [sys.executable, str(Path(__file__).resolve()), "floor-serve", self.spec]
        self.proc = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
        )
        if (await self._line()) != "ready":
            raise RuntimeError("the floor process did not start")
        return self

    async def exports(self, index: int, n: int) -> list[float]:
        """Seconds of `n` warm exports of target `index`, one after another."""
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(f"{index} {n}\n".encode())
        await self.proc.stdin.drain()
        answer: dict[str, Any] = json.loads(await self._line())
        self.rss_mb = float(answer["rss_mb"])
        return [float(x) for x in answer["seconds"]]

    async def _line(self) -> str:
        assert self.proc is not None and self.proc.stdout is not None
        line = await self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the floor process exited ({await self.proc.wait()})")
        return line.decode().strip()

    async def __aexit__(self, *exc: object) -> None:
        if self.proc is not None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            await self.proc.wait()


def floor_serve_main(argv: list[str]) -> None:
    """The kept floor process: loads and warms each target, says "ready", then answers each
    "INDEX N" line of stdin with the seconds of N warm exports of that target."""
    import torch

    loaded = []
    for target in json.loads(argv[0]):
        names = runpy.run_path(target["path"], run_name="exportlens_bench_model")  # not __main__
        cls, strict = names[target["class"]], bool(target["strict"])
        example = eval(target["inputs"], names)
        torch.export.export(cls(), example, strict=strict)  # warm-up
        loaded.append((cls, example, strict))
    print("ready", flush=True)
    for line in sys.stdin:
        index, n = map(int, line.split())
        cls, example, strict = loaded[index]
        seconds = []
        for _ in range(n):
            model = cls()
            started = time.perf_counter()
            torch.export.export(model, example, strict=strict)
            seconds.append(time.perf_counter() - started)
        print(json.dumps({"seconds": seconds, "rss_mb": rss_mb()}), flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["floor"]:
        floor_main(sys.argv[2:])
    elif sys.argv[1:2] == ["floor-serve"]:
        floor_serve_main(sys.argv[2:])
    else:
        sys.exit("usage: measure.py floor TARGETS_JSON [--runs N] | measure.py floor-serve TARGETS_JSON")
