"""What each target (`core-aten`, `onnx`, `executorch`, `coreml`, `aoti`) costs next to an export (CPU s).

    PYTHONPATH=server python bench/lowering_cost.py [--repeat N] [--transformer LAYERS] [--no-aoti]
                                                    [--quantize] [--target NAME ...]

The model is bench/models.py's MLP (or its transformer); each run exports it, then runs each
target's `check` (worker/lowering/) on that program, as the child does after a clean export.
One warm-up run first (torch.onnx builds its registry once per process, as a warm worker does);
the figures are medians of the CPU time of the runs after it: this process's and its waited-for
children's (AOTInductor's g++), as the C++ compile is most of `aoti`.  `aoti` compiles with
inductor's caches off, as after an edit (a warm cache would time a cache hit, not a compile); its
wall time is printed too.  `--quantize` adds the row `executorch-int8`: the `executorch` target with
`exportlens.quantize` `xnnpack` (torchao's pt2e flow first, worker/lowering/quantize.py).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import statistics
import sys
import time
from typing import Any

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "server"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exportlens.worker.core.budget import Budget
from exportlens.worker.lowering import lower
from models import ModelSpec, mlp, transformer


class Attempt:
    """What a lowering reads of the child's attempt (worker/job/inputs.py): the module and its inputs."""

    def __init__(self, module: Any, args: tuple[Any, ...]) -> None:
        self.module, self.args, self.kwargs, self.meta = module, args, {}, False
        self.dynamic_shapes = None


QUANTIZED = "executorch-int8"  # the row of the executorch target with exportlens.quantize = "xnnpack"


def build(spec: ModelSpec) -> tuple[Any, tuple[Any, ...]]:
    scope: dict[str, Any] = {}
    exec(spec.source(False).split('if __name__ == "__main__":')[0], scope)
    torch.manual_seed(0)
    return scope[spec.class_name]().eval(), eval(spec.inputs, scope)


def cpu() -> float:
    """CPU seconds of this process and of its children that ended (g++ under AOTInductor)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def one_run(module: Any, args: tuple[Any, ...], targets: tuple[str, ...]) -> dict[str, float]:
    started = cpu()
    program = torch.export.export(module, args)
    figures = {"export": cpu() - started}
    for target in targets:
        started, wall = cpu(), time.perf_counter()
        uncached = torch._inductor.config.patch(force_disable_caches=True) if target == "aoti" else None
        with uncached or contextlib.nullcontext():
            budget = Budget(time.monotonic() + 600)
            quantize = "xnnpack" if target == QUANTIZED else "none"
            name = "executorch" if target == QUANTIZED else target
            (result,) = lower([name], program, Attempt(module, args), "<bench>", budget, quantize)
        figures[target], figures[f"{target} wall"] = cpu() - started, time.perf_counter() - wall
        if not result.get("ok"):
            raise SystemExit(f"{target} did not pass on the benchmark model: {result}")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--transformer", type=int, default=0, metavar="LAYERS", help="the transformer instead"
    )
    parser.add_argument("--no-aoti", action="store_true", help="leave out aoti (tens of seconds a run)")
    parser.add_argument("--quantize", action="store_true", help=f"add {QUANTIZED}: executorch, quantized")
    parser.add_argument("--target", action="append", default=[], help="only this target (repeatable)")
    options = parser.parse_args()
    spec = transformer(options.transformer) if options.transformer else mlp()
    module, args = build(spec)
    targets = ("core-aten", "onnx", "executorch", "coreml") + ((QUANTIZED,) if options.quantize else ())
    targets += () if options.no_aoti else ("aoti",)
    targets = tuple(options.target) or targets
    cold = one_run(module, args, targets)
    runs = [one_run(module, args, targets) for _ in range(options.repeat)]
    print(f"{spec.label}; torch {torch.__version__}; median of {options.repeat} warm runs (CPU s, with g++)")
    export = statistics.median(r["export"] for r in runs)
    print(f"{'step':<15} {'cold':>8} {'median':>8} {'x export':>9} {'wall':>8}")
    for step in ("export", *targets):
        median = statistics.median(r[step] for r in runs)
        wall = f"{statistics.median(r[step + ' wall'] for r in runs):>8.3f}" if step != "export" else ""
        print(f"{step:<15} {cold[step]:>8.3f} {median:>8.3f} {median / export:>9.2f} {wall}")


if __name__ == "__main__":
    main()
