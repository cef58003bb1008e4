"""Pay torch's first-use costs once, in the worker, so that every job forked after is warm.

Every job is a child forked from the worker, so whatever the worker has
already initialised (dynamo, fake tensors, symbolic shapes, the decompositions
and kernels of common layers, the error paths) is warm in every child.  Only
tiny tensors and one thread: a forked child hangs if the parent ever started
OpenMP's thread pool.

The warm-up (~8 s on 2 cores) is not paid before the first job: the worker says it is ready
once torch is imported, the first job runs in a cold child (it pays its own first-use costs,
seconds less than the whole warm-up), and `WarmUp` runs the steps one at a time between jobs.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import pkgutil
import sys
import time
from collections.abc import Callable
from typing import Any

from ..wire.shared import WARM_LINE
from .torch_state import leaves_no_trace

# What a job's child runs is all in these (job/__init__.py): the worker imports them before it
# forks.  Not lowering/: only a job that asks for a lowering needs it.
CHILD_PACKAGES = ("wire", "core", "capture", "parts", "job")


class WarmUp:
    """The warm-up's steps still to run; the worker runs one whenever it would otherwise wait."""

    def __init__(self, tracers: frozenset[str] | None = None) -> None:
        """`tracers`: only the steps of these ("non-strict", "strict"), the ones the run's jobs
        use (the CLI's, check/warm_tracers.py); None: all of them."""
        self.pending = [(t, step) for t, step in steps() if tracers is None or t in tracers]
        self.seconds = 0.0
        self.warmed: set[str] = set()  # the tracers whose steps ran

    @property
    def done(self) -> bool:
        return not self.pending

    def step(self) -> None:
        started = time.monotonic()
        tracer, step = self.pending.pop(0)
        with contextlib.suppress(Exception):  # an optimisation only: a job pays what is left
            run_step(step)
        self.warmed.add(tracer)
        self.seconds += time.monotonic() - started
        if self.done:
            freeze()
            tracers = ", ".join(sorted(self.warmed))
            print(f"{WARM_LINE} in {self.seconds:.2f} s: {tracers}", file=sys.stderr, flush=True)


def warm_up() -> None:
    """Every step at once (the warm-up state test)."""
    for _, step in steps():
        run_step(step)


def run_step(step: Callable[[], None]) -> None:
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        # Every job inherits what the warm-up leaves in torch: it must leave nothing (torch 2.10's
        # failed non-strict export keeps a global hook that refuses later strict exports).
        with leaves_no_trace():
            step()
    finally:
        torch.set_num_threads(threads)


def steps() -> list[tuple[str, Callable[[], None]]]:
    """One export each, by tracer, cheapest first: non-strict (what most jobs use), then strict
    (dynamo, torch.compile's tracer too)."""
    import torch
    from torch import nn
    from torch.export import Dim

    class Tiny(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(10, 8)
            self.norm = nn.LayerNorm(8)
            self.attn = nn.MultiheadAttention(8, 2, batch_first=True)
            self.ff = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Dropout(0.1), nn.Linear(16, 8))
            self.conv = nn.Conv1d(8, 8, 3, padding=1)
            self.conv2d = nn.Conv2d(1, 2, 3, padding=1)
            self.bn = nn.BatchNorm2d(2)

        def forward(self, tokens: torch.Tensor) -> torch.Tensor:
            x = self.norm(self.embed(tokens))
            x = x + self.attn(x, x, x, need_weights=False)[0]
            x = x + self.ff(x)
            x = self.conv(x.transpose(1, 2)).transpose(1, 2)
            q = x.view(x.shape[0], x.shape[1], 2, 4).permute(0, 2, 1, 3)
            x = torch.nn.functional.scaled_dot_product_attention(q, q, q).reshape(x.shape)
            image = self.bn(self.conv2d(x[:, None])).relu()
            return torch.cat([x.softmax(-1), image.mean(1)], dim=-1).sum(-1)

    class Branchy(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            if x.sum() > 0:  # the data-dependent error path, warm too
                return x
            return -x

    def tiny(strict: bool) -> None:
        tokens = torch.randint(0, 10, (2, 4))
        batch = Dim("batch", min=2, max=64)
        export(Tiny().eval(), (tokens,), strict=strict, dynamic_shapes={"tokens": {0: batch}})

    def branchy(strict: bool) -> None:
        with contextlib.suppress(Exception):
            export(Branchy(), (torch.ones(2),), strict=strict)

    return [
        ("non-strict", lambda: tiny(False)),
        ("non-strict", lambda: branchy(False)),
        ("strict", lambda: tiny(True)),
        ("strict", lambda: branchy(True)),
    ]


def export(module: Any, args: tuple[Any, ...], **kwargs: Any) -> Any:
    import torch

    return torch.export.export(module, args, **kwargs)


def prepare_for_forking() -> None:
    """Make each fork cheap: children inherit what is imported and touch little memory.

    What every export imports (torch.export pulls in dynamo, sympy, fake tensors, AOT autograd:
    as long as `import torch` itself) is imported here, before the worker says it is ready, so
    a job forked before the warm-up is done does not import it again, nor does the warm-up."""
    import torch._functorch.aot_autograd
    import torch.export._trace  # noqa: F401

    # Every module a job's child may use (tests/worker/test_child_imports_nothing.py): one the
    # child imports itself is loaded again in each child, on every check.
    for package in CHILD_PACKAGES:
        import_all(package)

    # No collection first: with the collector off since the start there is little garbage, and
    # a full collection of these ~300,000 objects is 0.3 s on the way to the first job.
    gc.freeze()
    gc.enable()  # main() turns it off for the imports: ~20% of their CPU is collections of nothing


def import_all(package: str) -> None:
    """Import each module of the worker's subpackage `package` (by its name under whichever name
    the worker was loaded: `exportlens.worker` or boot.py's private one)."""
    loaded = importlib.import_module(f"{__name__.rsplit('.', 2)[0]}.{package}")
    for found in pkgutil.iter_modules(loaded.__path__):
        importlib.import_module(f"{loaded.__name__}.{found.name}")


def freeze() -> None:
    gc.collect()
    # Frozen objects are never scanned by the collector, so a child's garbage
    # collections do not write to (and copy) every page of the inherited heap.
    gc.freeze()


def torch_origin() -> str | None:
    """The file `import torch` loads in this interpreter (None: there is none)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return None
    return spec.origin if spec is not None else None
