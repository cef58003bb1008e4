"""A job's fake-tensor cache entries go back to the worker, and the next child starts with them.

worker/job/fake_cache.py: every check ran in a child forked with only the warm-up's entries, so
each check of the same model missed the same ops again (a third of a warm export). Checked in
the real worker with real torch:
- the second check of a model (a fresh child) adds no entry: the worker had them all;
- the findings are the same with the entries as without;
- entries of a user's custom op are never sent (the worker does not know the op), and the
  model's other entries still are;
- when the user's file registers its own kernel for an aten op, the worker takes none of that
  child's entries: each check misses them again.
"""

from __future__ import annotations

from exportlens.engine import Engine, EngineOptions
from tests.conftest import check
from tests.custom_ops import scale_op

MODEL = """
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(24, 40), nn.GELU(), nn.LayerNorm(40), nn.Linear(40, 6))

    def forward(self, x):
        return self.layers(x).softmax(-1)

    def example_inputs(self):
        return (torch.randn(5, 24),)
"""

BRANCH = MODEL.replace(
    "        return self.layers(x).softmax(-1)",
    "        y = self.layers(x)\n        if y.sum() > 0:\n            return y\n        return y.softmax(-1)",
)

WITH_OP = """
from torch import nn

class WithOp(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(28, 12)

    def forward(self, x):
        return scale(self.linear(x)).tanh()

    def example_inputs(self):
        return (torch.randn(3, 28),)
"""
CUSTOM_OP = scale_op("cachetest") + WITH_OP

# The user's own Meta kernel for aten.tanh (right, but not torch's): its entries answer for it.
OVERRIDE = """
import torch
from torch import nn

_lib = torch.library.Library("aten", "IMPL")
_lib.impl("tanh", lambda x: torch.empty_like(x), "Meta")

class Overridden(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(36, 14)

    def forward(self, x):
        return self.linear(x).tanh()

    def example_inputs(self):
        return (torch.randn(7, 36),)
"""


def added(result) -> int:  # type: ignore[no-untyped-def]
    (module,) = result.modules
    assert module.status in ("exported", "failed"), (module.status, [d.message for d in result.diagnostics])
    return int(module.timings["fake_cache_added"])


async def test_the_next_child_starts_with_the_entries_of_the_last(write) -> None:  # type: ignore[no-untyped-def]
    engine = Engine(EngineOptions(timeout=120.0))
    try:
        path = write("net.py", MODEL)
        first = await check(engine, path)
        assert added(first) > 0  # shapes the warm-up never saw
        second = await check(engine, path)
        assert added(second) == 0  # a fresh child, the worker's entries
        assert [d.code for d in second.diagnostics] == [d.code for d in first.diagnostics] == []
        failing = await check(engine, path, source=BRANCH)  # the same ops: findings as ever
        assert [d.code for d in failing.diagnostics] == ["data-dependent-branch"]
    finally:
        await engine.close()


async def test_a_custom_ops_entries_stay_in_its_child(write) -> None:  # type: ignore[no-untyped-def]
    engine = Engine(EngineOptions(timeout=120.0))
    try:
        path = write("with_op.py", CUSTOM_OP)
        first = await check(engine, path)
        assert [d.code for d in first.diagnostics] == [], [d.message for d in first.diagnostics]
        second = await check(engine, path)
        # the custom op's entry is missed again each time; linear's and tanh's are not
        assert 0 < added(second) < added(first)
    finally:
        await engine.close()


async def test_a_file_with_its_own_aten_kernel_hands_back_nothing(write) -> None:  # type: ignore[no-untyped-def]
    engine = Engine(EngineOptions(timeout=120.0))
    try:
        path = write("overridden.py", OVERRIDE)
        first = await check(engine, path)
        assert [d.code for d in first.diagnostics] == [], [d.message for d in first.diagnostics]
        second = await check(engine, path)
        assert added(second) == added(first) > 0
    finally:
        await engine.close()
