"""What finding all failures costs: plain export vs export + `more_failures` (warm, in-process).

    PYTHONPATH=server python bench/allfailures_cost.py [--repeat N]

Cases: a small module with three independent data-dependent failures, and a
12-layer d=256 transformer (dynamic batch and sequence) with one data-dependent
branch, placed after the last layer (the plain export traces everything, then
fails) and before the first (the plain export fails at once).  "clean" is the
same model exporting successfully (branch switched off): the floor for any
search that must trace the whole model.  draft_export is timed once for
reference with --draft (non-strict; its trace files go to a temporary folder).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "server"))
from exportlens.worker.allfailures import more_failures
from exportlens.worker.inputs import Attempt


class Multi(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
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


def timed(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def export(attempt: Attempt, strict: bool) -> Any:
    return torch.export.export(
        attempt.module, attempt.args, dynamic_shapes=attempt.dynamic_shapes, strict=strict
    )


def failing_export(attempt: Attempt, strict: bool) -> BaseException:
    try:
        torch.export.export(
            attempt.module, attempt.args, dynamic_shapes=attempt.dynamic_shapes, strict=strict
        )
    except Exception as exc:
        return exc
    raise AssertionError("expected the export to fail")


def clean_export(attempt: Attempt, strict: bool, repeat: int) -> float:
    """The same model with its branch switched off, exported successfully (NaN if it has no switch)."""
    module = attempt.module
    if not hasattr(module, "branch"):
        return float("nan")
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


def draft(attempt: Attempt, folder: str) -> None:
    os.environ["TORCH_DTRACE"] = folder  # keep draft_export's trace files out of /tmp/export_<user>
    torch.export.draft_export(attempt.module, attempt.args, dynamic_shapes=attempt.dynamic_shapes)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--draft", action="store_true", help="also time draft_export (slow: minutes)")
    options = parser.parse_args()
    repeat = options.repeat
    torch.manual_seed(0)
    seq = Dim("seq", min=2, max=512)
    dyn = {"x": {0: Dim("batch", min=2, max=64), 1: seq}}
    cases = [
        ("3-failure module", Attempt(Multi(), (torch.randn(4, 8),)), __file__),
        (
            "12x256 transformer, branch last",
            Attempt(Transformer("last").eval(), (torch.randn(2, 16, 256),), dynamic_shapes=dyn),
            __file__,
        ),
        (
            "12x256 transformer, branch first",
            Attempt(Transformer("first").eval(), (torch.randn(2, 16, 256),), dynamic_shapes=dyn),
            __file__,
        ),
    ]
    print(f"torch {torch.__version__}; medians of {repeat}; seconds")
    print(
        f"{'case':34} {'mode':10} {'export':>8} {'+more':>8} {'ratio':>6} {'found':>5} {'clean':>8}"
        f" {'/clean':>6} {'draft':>8}"
    )
    with tempfile.TemporaryDirectory() as folder:
        for name, attempt, path in cases:
            for strict in (False, True):
                failing_export(attempt, strict)  # warm up this tracer on this model
                plain = timed(lambda a=attempt, s=strict: failing_export(a, s), repeat)
                found: list[Any] = []

                def both(
                    a: Attempt = attempt, s: bool = strict, found: list[Any] = found, path: str = path
                ) -> None:
                    found[:] = more_failures(failing_export(a, s), a, s, path)

                total = timed(both, repeat)
                drafted = float("nan")
                if options.draft and not strict:
                    drafted = timed(lambda a=attempt: draft(a, folder), 1)
                clean = clean_export(attempt, strict, repeat)
                mode = "strict" if strict else "non-strict"
                print(
                    f"{name:34} {mode:10} {plain:8.3f} {total:8.3f} {total / plain:6.2f} {len(found):5d}"
                    f" {clean:8.3f} {total / clean:6.2f} {drafted:8.3f}"
                )


if __name__ == "__main__":
    main()
