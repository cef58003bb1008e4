"""Scale: a 1.34B-parameter model without allocating its weights, and a file with 50 modules.

    PYTHONPATH=server python bench/scale.py [--layers 24] [--modules 50] [--real]

- large model: 24 layers, d=2048 (1.34B parameters, 5.4 GB of fp32 weights), with one
  data-dependent branch. The engine builds it on the meta device (weights above
  `meta_above_mb`), so the check's time and the job's peak RSS are those of tracing only;
  checked with the search for all failures off, then on. `--real` also checks it with real
  weights (slow: ~30 s and ~12 GB per check on a 2-core machine) to compare.
- many modules: a generated file of N small modules (40 lines each: 50 make 2,000 lines). The
  first full check (the worker runs two exports at a time), with the CPU its jobs used over
  the wall time: the cores used. Then one module is edited and re-checked: the modules to
  re-export are those whose cache key (`check/keys.py`) changed.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

try:
    import exportlens  # noqa: F401
except ImportError:  # run from a checkout without PYTHONPATH=server
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "server"))

from exportlens.check import CheckOptions, check_file
from exportlens.check.keys import module_keys
from exportlens.discovery import discover
from exportlens.engine import Engine, EngineOptions
from measure import tree_cpu_seconds

D_MODEL, VOCAB = 2048, 32000

LARGE = """
import torch
from torch import nn

D, LAYERS, VOCAB, HEADS = {d}, {layers}, {vocab}, 16


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = nn.LayerNorm(D)
        self.attn = nn.MultiheadAttention(D, HEADS, batch_first=True)
        self.norm2 = nn.LayerNorm(D)
        self.ff = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.ff(self.norm2(x))


class Large(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.head = nn.Linear(D, VOCAB)

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        if x.mean() > 0:  # a data-dependent branch: the check must find it on this line
            x = x * 2
        return self.head(x)

    def example_inputs(self):
        return (torch.randint(0, VOCAB, (2, 16)),)
"""

# 40 lines with the blank lines before it; "{i}" and "{scale}" are replaced (no str.format: braces).
SMALL = '''

class Model{i}(nn.Module):
    """Gated residual block {i}: two projections, a gate and a norm.

    A typical small module of a model file: a few layers, a helper method,
    some arithmetic in forward, and the example inputs the checker uses.
    """

    def __init__(self, width: int = 32, hidden: int = 64) -> None:
        super().__init__()
        self.width = width
        self.fc1 = nn.Linear(width, hidden)
        self.fc2 = nn.Linear(hidden, width)
        self.gate = nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)

    def project(self, x: torch.Tensor) -> torch.Tensor:
        """The block's MLP branch."""
        h = self.fc1(x)
        h = torch.relu(h)
        return self.fc2(h)

    def mix(self, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        """Blend the branch into the input, per feature."""
        g = torch.sigmoid(self.gate(x))
        return g * h + (1 - g) * x

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.project(x) * {scale}
        h = self.mix(x, h)
        h = self.norm(h)
        return h

    def example_inputs(self) -> tuple[torch.Tensor]:
        return (torch.randn(4, self.width),)

    def extra_repr(self) -> str:
        return "block {i}"
'''


def large_params(layers: int) -> int:
    """Parameters of the large model: embedding and head, and 12 d^2 + 13 d per block."""
    return 2 * VOCAB * D_MODEL + VOCAB + layers * (12 * D_MODEL * D_MODEL + 13 * D_MODEL)


@dataclass
class LargeCheck:
    weights: str  # "meta" or "real"
    all_failures: bool
    seconds: float  # caller's wall clock for the check
    first_s: float | None  # until its first failure was reported (before the search for more)
    peak_rss_mb: float  # the job's peak RSS (the forked child's ru_maxrss)
    findings: list[str]  # error codes @ line


@dataclass
class ManyModules:
    modules: int
    lines: int
    full_s: float  # first full check, wall
    exported: int
    cpu_s: float  # CPU of the worker and its jobs during the full check
    recheck_s: float  # median re-check after one module was edited
    reexported: list[str]  # the modules whose cache key the edit changed

    @property
    def cores_used(self) -> float:
        return self.cpu_s / self.full_s


@dataclass
class ScaleReport:
    layers: int
    large: list[LargeCheck] = field(default_factory=list)
    many: ManyModules | None = None


async def large_model(engine: Engine, tmp: Path, layers: int, real: bool) -> list[LargeCheck]:
    path = tmp / "large.py"
    path.write_text(LARGE.format(d=D_MODEL, layers=layers, vocab=VOCAB), encoding="utf-8")
    # The default threshold (1024 MB); below it for a scaled-down model, so that it still goes meta.
    meta_mb = min(1024.0, large_params(layers) * 4 / 2**20 / 2)
    runs: list[tuple[str, float | None]] = [("meta", meta_mb)] + ([("real", None)] if real else [])
    checks = []
    for weights, threshold in runs:
        for all_failures in (False, True):
            options = CheckOptions(roots=[str(tmp)], meta_above_mb=threshold, all_failures=all_failures)
            started = time.perf_counter()
            early: list[float] = []
            result = await check_file(
                engine,
                str(path),
                None,
                options,
                only={"Large"},
                early=lambda *_, marks=early, t0=started: marks.append(time.perf_counter() - t0),
            )
            seconds = time.perf_counter() - started
            errors = {(d.code, d.range.start.line + 1) for d in result.diagnostics if d.severity == "error"}
            module = next(m for m in result.modules if m.name == "Large")
            rss = float(module.timings.get("max_rss_mb", 0.0))
            findings = [f"{code}@{line}" for code, line in sorted(errors)]
            # The first failure comes early when more are searched for, else with the result.
            first = early[0] if early else (seconds if errors else None)
            checks.append(LargeCheck(weights, all_failures, seconds, first, rss, findings))
    return checks


async def many_modules(engine: Engine, tmp: Path, count: int, rechecks: int = 5) -> ManyModules:
    header = "import torch\nfrom torch import nn\n"
    blocks = (SMALL.replace("{i}", str(i)).replace("{scale}", "1.0") for i in range(count))
    source = header + "".join(blocks)
    path = tmp / "many.py"
    path.write_text(source, encoding="utf-8")
    options = CheckOptions(roots=[str(tmp)])
    worker = await engine.worker()
    assert worker.pid is not None
    cpu = tree_cpu_seconds(worker.pid)
    started = time.perf_counter()
    first = await check_file(engine, str(path), None, options)
    full = time.perf_counter() - started
    cpu = tree_cpu_seconds(worker.pid) - cpu
    edited = source.replace("h = self.project(x) * 1.0", "h = self.project(x) * 2.0", 1)
    before, after = (module_keys(text, discover(text, str(path)), ()) for text in (source, edited))
    changed = {name for name, key in after.items() if before.get(name) != key}
    timings = []
    for _ in range(rechecks):
        started = time.perf_counter()
        await check_file(engine, str(path), edited, options, only=changed)
        timings.append(time.perf_counter() - started)
    return ManyModules(
        modules=count,
        lines=len(source.splitlines()),
        full_s=full,
        exported=sum(m.status == "exported" for m in first.modules),
        cpu_s=cpu,
        recheck_s=statistics.median(timings),
        reexported=sorted(changed),
    )


async def measure_scale(
    layers: int, modules: int, real: bool, engine: Engine | None = None, rechecks: int = 5
) -> ScaleReport:
    """Both parts, one check at a time; `engine` is left open (by default a fresh one, closed)."""
    owned = engine is None
    engine = engine or Engine(EngineOptions(timeout=600.0))
    try:
        await engine.worker()
        with tempfile.TemporaryDirectory(prefix="exportlens-scale-") as tmp:
            report = ScaleReport(layers, await large_model(engine, Path(tmp), layers, real))
            report.many = await many_modules(engine, Path(tmp), modules, rechecks)
            return report
    finally:
        if owned:
            await engine.close()


def table(report: ScaleReport) -> str:
    params = large_params(report.layers) / 1e9
    rows = []
    for check in report.large:
        size = f"{report.layers} layers, d={D_MODEL}, {params:.2f}B params"
        label = f"large model ({size}), {check.weights} weights"
        switch = "on" if check.all_failures else "off"
        rows.append(
            (
                f"{label}, all failures {switch}",
                f"{check.seconds:.2f} s, peak job RSS {check.peak_rss_mb:.0f} MB"
                + (f", first failure shown at {check.first_s:.2f} s" if check.first_s is not None else ""),
            )
        )
        rows.append(("  findings", ", ".join(check.findings) or "none"))
    many = report.many
    if many is not None:
        rows += [
            (
                f"{many.modules} modules, {many.lines} lines: first full check",
                f"{many.full_s:.2f} s ({many.exported} exported)",
            ),
            (
                "  worker CPU / wall: cores used",
                f"{many.cpu_s:.1f} s / {many.full_s:.2f} s = {many.cores_used:.2f}",
            ),
            (
                "  per module in the full check",
                f"{many.full_s / many.modules * 1000:.0f} ms (2 exports at a time)",
            ),
            ("  modules re-exported after editing Model0", ", ".join(many.reexported) or "none"),
            ("  re-check after the edit", f"{many.recheck_s:.2f} s (median)"),
        ]
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--layers", type=int, default=24)
    parser.add_argument("--modules", type=int, default=50)
    parser.add_argument("--real", action="store_true", help="also check the large model with real weights")
    args = parser.parse_args()
    print(table(asyncio.run(measure_scale(args.layers, args.modules, args.real))))


if __name__ == "__main__":
    main()
