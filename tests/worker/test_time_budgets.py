"""The first failure survives a slow search for more: the search has its own budget and says so."""

from __future__ import annotations

from exportlens.engine import Engine
from tests.conftest import check, line_of

SLOW_AFTER_THE_FIRST = """
    import torch


    class SlowTail(torch.nn.Module):
        def forward(self, x):
            if x.sum() > 0:  # the first failure: torch raises it at once
                x = x * 2
            for _ in range(1_000_000):  # traced op by op on the search's second pass: far too slow
                x = x + 1
            return x

        def example_inputs(self):
            return (torch.ones(3),)
"""


async def test_a_search_that_runs_out_of_time_keeps_the_first_failure(engine: Engine, write) -> None:
    path = write("slow_tail.py", SLOW_AFTER_THE_FIRST)
    saved = engine.options.timeout
    engine.options.timeout = 12.0
    try:
        result = await check(engine, path, mode="non-strict")
    finally:
        engine.options.timeout = saved
    (module,) = result.modules
    assert module.status == "failed", module.status  # not "timeout": nothing torch said is lost
    (finding,) = result.diagnostics
    assert finding.code == "data-dependent-branch"
    assert finding.range.start.line == line_of(path, "if x.sum() > 0")
    assert "the search for more failures ran out of the time limit" in finding.message
    assert "`timeoutSeconds`" in finding.message and "`allFailures: false`" in finding.message
