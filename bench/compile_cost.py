"""What a compile check costs next to a strict export of the same model (warm, in-process, CPU s).

    PYTHONPATH=server python bench/compile_cost.py [--repeat N] [--transformer LAYERS]

The model is bench/models.py's MLP (or its transformer). Each run does what the worker's child does
for the module: a strict `torch.export.export`, and the compile check (`worker/job/compiled.py`: dynamo
with backends that compile nothing, then the recompile pass at two more batch sizes), each after
`torch._dynamo.reset()`, as in a fresh child. One warm-up run first; the figures are medians of the
CPU time of the runs after it. Issue 31's bar: the compile check costs at most 1.5x the export.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Any

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "server"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exportlens.worker.core.budget import Budget
from exportlens.worker.job.compiled import compile_check
from models import ModelSpec, mlp, transformer

BAR = 1.5  # issue 31: a compile check costs at most this times the strict export's


@dataclass(frozen=True)
class CompileCost:
    model: str
    export: float  # median CPU s of a strict export
    compile: float  # median CPU s of the compile check
    repeat: int

    @property
    def ratio(self) -> float:
        return self.compile / self.export if self.export else float("inf")


class Attempt:
    """What the compile check reads of the child's attempt (worker/job/inputs.py)."""

    def __init__(self, module: Any, args: tuple[Any, ...]) -> None:
        self.module, self.args, self.kwargs = module, args, {}


def build(spec: ModelSpec) -> tuple[Any, tuple[Any, ...]]:
    scope: dict[str, Any] = {}
    exec(spec.source(False).split('if __name__ == "__main__":')[0], scope)
    torch.manual_seed(0)
    return scope[spec.class_name]().eval(), eval(spec.inputs, scope)


def one_run(module: Any, args: tuple[Any, ...]) -> tuple[float, float]:
    torch._dynamo.reset()
    started = time.process_time()
    torch.export.export(module, args, strict=True)
    exported = time.process_time() - started
    torch._dynamo.reset()
    started = time.process_time()
    report = compile_check(Attempt(module, args), {"fullgraph": False, "dynamic": None}, Budget(600.0))
    compiled = time.process_time() - started
    if report["breaks"] or report["recompiles"] or "recompile_error" in report:
        raise SystemExit(f"the benchmark model should compile cleanly: {report}")
    return exported, compiled


def measure(spec: ModelSpec, repeat: int) -> CompileCost:
    module, args = build(spec)
    one_run(module, args)  # warm-up: torch's first trace builds its caches
    runs = [one_run(module, args) for _ in range(repeat)]
    return CompileCost(
        spec.label,
        statistics.median(r[0] for r in runs),
        statistics.median(r[1] for r in runs),
        repeat,
    )


def table(cost: CompileCost) -> str:
    return "\n".join(
        [
            f"compile check vs strict export: {cost.model} (median of {cost.repeat}, CPU s)",
            f"  strict export   {cost.export:.3f}",
            f"  compile check   {cost.compile:.3f}",
            f"  ratio           {cost.ratio:.2f}x (bar: {BAR}x)",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--transformer", type=int, default=0, metavar="LAYERS", help="the transformer instead"
    )
    options = parser.parse_args()
    spec = transformer(options.transformer) if options.transformer else mlp()
    print(table(measure(spec, options.repeat)))


if __name__ == "__main__":
    main()
