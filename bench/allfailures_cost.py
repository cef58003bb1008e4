"""What finding all failures costs: plain export vs export + `more_failures` (warm, in-process).

    PYTHONPATH=server python bench/allfailures_cost.py [--repeat N] [--layers 12] [--draft]

Cases: a small module with three independent data-dependent failures, and a
12-layer d=256 transformer (dynamic batch and sequence) with one data-dependent
branch, placed after the last layer (the plain export traces everything, then
fails) and before the first (the plain export fails at once).  "clean" is the
same model exporting successfully (its branches switched off): the floor for any
search that must trace the whole model, so the cost is read against it.
draft_export is timed once for reference with --draft (non-strict; its trace
files go to a temporary folder).  Each case is warmed up in its tracer first.
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "server"))
from exportlens.worker.capture.allfailures import more_failures
from exportlens.worker.core.attempt import Attempt


class Multi(nn.Module):
    def __init__(self, branch: str = "all") -> None:
        super().__init__()
        self.branch = branch  # "none": the same module without its three failures
        self.fc = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        if self.branch == "none":
            return h
        if h.sum() > 0:
            h = h * 2
        if h.abs().max() > 100:
            h = h / 100
        k = (h > 0).nonzero()
        if k.shape[0] > 2:
            h = h - 1
        return h


class Block(nn.Module):
    def __init__(self, d: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, s, d)
        x = x + self.proj(a)
        return x + self.mlp(self.norm2(x))


class Transformer(nn.Module):
    def __init__(self, branch: str, layers: int = 12, d: int = 256, heads: int = 8) -> None:
        super().__init__()
        self.branch = branch
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.branch == "first" and x.mean() > 0:
            x = x * 0.5
        for block in self.blocks:
            x = block(x)
        if self.branch == "last" and x.mean() > 0:
            x = x * 0.5
        return x


@dataclass
class Cost:
    """One case in one tracer; medians in seconds."""

    case: str
    mode: str
    plain_s: float  # the failing export alone
    total_s: float  # the failing export, then more_failures
    extra: int  # failures found after the first
    clean_s: float  # the same model with its branches switched off, exporting successfully
    draft_s: float | None = None  # draft_export, once (--draft, non-strict only)

    @property
    def over_plain(self) -> float:
        return self.total_s / self.plain_s

    @property
    def over_clean(self) -> float:
        return self.total_s / self.clean_s


def timed(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def failing_export(attempt: Attempt, strict: bool) -> BaseException:
    try:
        torch.export.export(
            attempt.module, attempt.args, dynamic_shapes=attempt.dynamic_shapes, strict=strict
        )
    except Exception as exc:
        return exc
    raise AssertionError("expected the export to fail")


def clean_export(attempt: Attempt, strict: bool, repeat: int) -> float:
    """The same model with its branches switched off, exported successfully."""
    module = attempt.module
    branch, module.branch = module.branch, "none"
    try:
        return timed(
            lambda: torch.export.export(
                module, attempt.args, dynamic_shapes=attempt.dynamic_shapes, strict=strict
            ),
            repeat,
        )
    finally:
        module.branch = branch


def search(attempt: Attempt, strict: bool, found: list[Any]) -> None:
    """The failing export, then the search for its other failures (into `found`)."""
    found[:] = more_failures(failing_export(attempt, strict), attempt, strict, __file__)[0]


def draft(attempt: Attempt, folder: str) -> None:
    os.environ["TORCH_DTRACE"] = folder  # keep draft_export's trace files out of /tmp/export_<user>
    torch.export.draft_export(attempt.module, attempt.args, dynamic_shapes=attempt.dynamic_shapes)


def cases(layers: int) -> list[tuple[str, Attempt]]:
    seq = Dim("seq", min=2, max=512)
    dyn = {"x": {0: Dim("batch", min=2, max=64), 1: seq}}
    x = torch.randn(2, 16, 256)
    size = f"{layers}x256 transformer"
    return [
        ("3-failure module", Attempt(Multi(), (torch.randn(4, 8),))),
        (f"{size}, branch last", Attempt(Transformer("last", layers).eval(), (x,), dynamic_shapes=dyn)),
        (f"{size}, branch first", Attempt(Transformer("first", layers).eval(), (x,), dynamic_shapes=dyn)),
    ]


def measure_costs(repeat: int = 3, layers: int = 12, with_draft: bool = False) -> list[Cost]:
    """Every case in both tracers, one export at a time, in this process."""
    torch.manual_seed(0)
    costs = []
    with tempfile.TemporaryDirectory() as folder:
        for name, attempt in cases(layers):
            for strict in (False, True):
                failing_export(attempt, strict)  # warm up this tracer on this model
                plain = timed(functools.partial(failing_export, attempt, strict), repeat)
                found: list[Any] = []
                total = timed(functools.partial(search, attempt, strict, found), repeat)
                drafted = None
                if with_draft and not strict:
                    drafted = timed(functools.partial(draft, attempt, folder), 1)
                clean = clean_export(attempt, strict, repeat)
                mode = "strict" if strict else "non-strict"
                costs.append(Cost(name, mode, plain, total, len(found), clean, drafted))
    return costs


def table(costs: list[Cost], repeat: int) -> str:
    lines = [
        f"torch {torch.__version__}; medians of {repeat}; seconds",
        f"{'case':34} {'mode':10} {'export':>8} {'+more':>8} {'ratio':>6} {'extra':>5} {'clean':>8}"
        f" {'/clean':>6} {'draft':>8}",
    ]
    for c in costs:
        drafted = math.nan if c.draft_s is None else c.draft_s
        lines.append(
            f"{c.case:34} {c.mode:10} {c.plain_s:8.3f} {c.total_s:8.3f} {c.over_plain:6.2f} {c.extra:5d}"
            f" {c.clean_s:8.3f} {c.over_clean:6.2f} {drafted:8.3f}"
        )
    lines.append("export = the failing export; +more = it, then more_failures; extra = failures found after")
    lines.append("the first; clean = the same model without its failing branches, exporting successfully.")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--layers", type=int, default=12, help="transformer layers")
    parser.add_argument("--draft", action="store_true", help="also time draft_export (slow: minutes)")
    options = parser.parse_args()
    print(table(measure_costs(options.repeat, options.layers, options.draft), options.repeat))


if __name__ == "__main__":
    main()
