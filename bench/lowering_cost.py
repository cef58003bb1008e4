"""What the `core-aten` and `onnx` targets cost next to a plain export (warm, in-process, CPU seconds).

    PYTHONPATH=server python bench/lowering_cost.py [--repeat N] [--transformer LAYERS]

The model is bench/models.py's MLP (or its transformer); each run exports it, then runs each
target's `check` (worker/lowering/) on that program, as the child does after a clean export.
One warm-up run first (torch.onnx builds its registry once per process, as a warm worker does);
the figures are medians of the CPU time (time.process_time) of the runs after it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Any

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "server"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exportlens.worker.budget import Budget
from exportlens.worker.lowering import lower
from models import ModelSpec, mlp, transformer


class Attempt:
    """What a lowering reads of the child's attempt (worker/inputs.py): the module and its inputs."""

    def __init__(self, module: Any, args: tuple[Any, ...]) -> None:
        self.module, self.args, self.kwargs, self.meta = module, args, {}, False


def build(spec: ModelSpec) -> tuple[Any, tuple[Any, ...]]:
    scope: dict[str, Any] = {}
    exec(spec.source(False).split('if __name__ == "__main__":')[0], scope)
    torch.manual_seed(0)
    return scope[spec.class_name]().eval(), eval(spec.inputs, scope)


def one_run(module: Any, args: tuple[Any, ...]) -> dict[str, float]:
    started = time.process_time()
    program = torch.export.export(module, args)
    figures = {"export": time.process_time() - started}
    for target in ("core-aten", "onnx"):
        started = time.process_time()
        (result,) = lower([target], program, Attempt(module, args), "<bench>", Budget(time.monotonic() + 600))
        figures[target] = time.process_time() - started
        if not result.get("ok"):
            raise SystemExit(f"{target} did not pass on the benchmark model: {result}")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--transformer", type=int, default=0, metavar="LAYERS", help="the transformer instead"
    )
    options = parser.parse_args()
    spec = transformer(options.transformer) if options.transformer else mlp()
    module, args = build(spec)
    cold = one_run(module, args)
    runs = [one_run(module, args) for _ in range(options.repeat)]
    print(f"{spec.label}; torch {torch.__version__}; median of {options.repeat} warm runs (CPU s)")
    export = statistics.median(r["export"] for r in runs)
    print(f"{'step':<12} {'cold':>8} {'median':>8} {'x export':>9}")
    for step in ("export", "core-aten", "onnx"):
        median = statistics.median(r[step] for r in runs)
        print(f"{step:<12} {cold[step]:>8.3f} {median:>8.3f} {median / export:>9.2f}")


if __name__ == "__main__":
    main()
