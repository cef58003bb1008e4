"""Scale: a 1.34B-parameter model without allocating its weights, and a file with 50 modules.

    PYTHONPATH=server python bench/scale.py [--layers 24] [--modules 50] [--real]

- large model: 24 layers, d=2048 (1.34B parameters, 5.4 GB of fp32 weights). The engine
  builds it on the meta device (weights above `meta_above_mb`), so the check's time and the
  job's peak RSS are those of tracing only. `--real` also checks it with real weights (slow:
  ~30 s and ~12 GB on this machine) to compare.
- many modules: a generated file of N small modules (~40 lines each): the first full check,
  then a re-check of the one module an edit touched (what the language server does: its
  cache keeps the others), with the worker running two exports at a time.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from exportlens.check import CheckOptions, check_file
from exportlens.engine import Engine, EngineOptions

LARGE = """
import torch
from torch import nn

D, LAYERS, VOCAB, HEADS = {d}, {layers}, 32000, 16


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

SMALL = """

class Model{i}(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(32, 64)
        self.fc2 = nn.Linear(64, 32)
        self.norm = nn.LayerNorm(32)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        h = self.fc2(h) * {scale}
        return self.norm(h + x)

    def example_inputs(self):
        return (torch.randn(4, 32),)
"""


async def large_model(engine: Engine, tmp: Path, layers: int, real: bool) -> list[tuple[str, str]]:
    path = tmp / "large.py"
    path.write_text(LARGE.format(d=2048, layers=layers))
    rows = []
    for label, threshold in [("meta weights", 1024.0)] + ([("real weights", None)] if real else []):
        options = CheckOptions(roots=[str(tmp)], meta_above_mb=threshold)
        started = time.perf_counter()
        result = await check_file(engine, str(path), None, options, only={"Large"})
        seconds = time.perf_counter() - started
        codes = sorted(
            {(d.code, d.range.start.line + 1) for d in result.diagnostics if d.severity == "error"}
        )
        module = next(m for m in result.modules if m.name == "Large")
        rss = f"{module.timings.get('max_rss_mb', 0):.0f} MB"
        rows.append(
            (f"large model ({layers} layers, d=2048), {label}", f"{seconds:.2f} s, peak job RSS {rss}")
        )
        rows.append(("  findings", ", ".join(f"{c}@{line}" for c, line in codes) or "none"))
    return rows


async def many_modules(engine: Engine, tmp: Path, count: int) -> list[tuple[str, str]]:
    header = "import torch\nfrom torch import nn\n"
    source = header + "".join(SMALL.format(i=i, scale="1.0") for i in range(count))
    path = tmp / "many.py"
    path.write_text(source)
    options = CheckOptions(roots=[str(tmp)])
    started = time.perf_counter()
    first = await check_file(engine, str(path), None, options)
    full = time.perf_counter() - started
    edited = source.replace("h = self.fc2(h) * 1.0", "h = self.fc2(h) * 2.0", 1)
    timings = []
    for _ in range(5):
        started = time.perf_counter()
        await check_file(engine, str(path), edited, options, only={"Model0"})
        timings.append(time.perf_counter() - started)
    exported = sum(m.status == "exported" for m in first.modules)
    lines = len(source.splitlines())
    return [
        (f"{count} modules, {lines} lines: first full check", f"{full:.2f} s ({exported} exported)"),
        ("  re-check of the edited module", f"{statistics.median(timings):.2f} s (median of 5)"),
        ("  per module in the full check", f"{full / count * 1000:.0f} ms (2 exports at a time)"),
    ]


async def main(args: argparse.Namespace) -> None:
    engine = Engine(EngineOptions(timeout=600.0))
    try:
        await engine.worker()
        with tempfile.TemporaryDirectory(prefix="exportlens-scale-") as tmp:
            rows = await large_model(engine, Path(tmp), args.layers, args.real)
            rows += await many_modules(engine, Path(tmp), args.modules)
    finally:
        await engine.close()
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--layers", type=int, default=24)
    parser.add_argument("--modules", type=int, default=50)
    parser.add_argument("--real", action="store_true", help="also check the large model with real weights")
    asyncio.run(main(parser.parse_args()))
    sys.exit(0)
