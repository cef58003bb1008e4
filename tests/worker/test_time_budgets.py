"""The first failure survives a slow search for more: the search has its own budget and says so."""

from __future__ import annotations

from exportlens.engine import Engine
from exportlens.findings import FileResult
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


async def _check_within(engine: Engine, path: str, seconds: float) -> FileResult:
    """The file's non-strict check under a time limit of `seconds`."""
    saved = engine.options.timeout
    engine.options.timeout = seconds
    try:
        return await check(engine, path, mode="non-strict")
    finally:
        engine.options.timeout = saved


async def test_a_search_that_runs_out_of_time_keeps_the_first_failure(engine: Engine, write) -> None:
    path = write("slow_tail.py", SLOW_AFTER_THE_FIRST)
    result = await _check_within(engine, path, 12.0)
    (module,) = result.modules
    assert module.status == "failed", module.status  # not "timeout": nothing torch said is lost
    (finding,) = result.diagnostics
    assert finding.code == "data-dependent-branch"
    assert finding.range.start.line == line_of(path, "if x.sum() > 0")
    assert "the search for more failures ran out of the time limit" in finding.message
    assert "`timeoutSeconds`" in finding.message and "`allFailures: false`" in finding.message


SLOW_GATE = """
    import time

    import torch
    from torch.export import Dim


    class SlowGate(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(8, 8)

        def forward(self, x):
            started = time.process_time()
            while time.process_time() - started < 4.0:  # a slow model: 4 s of CPU per trace
                pass
            if x.shape[0] == 4:
                return self.fc(x) * 2
            return self.fc(x)


    torch.export.export(SlowGate(), (torch.randn(4, 8),), dynamic_shapes=({0: Dim("batch")},))
"""


async def test_a_slow_export_gets_the_time_to_locate_its_failure(engine: Engine, write) -> None:
    """A 4 s export under a 6 s limit: finding the specializing line costs one more export, which the
    limit alone would not leave (it was on the export call); the limit grown to fit gives it."""
    path = write("slow_gate.py", SLOW_GATE)
    result = await _check_within(engine, path, 6.0)
    (finding,) = [d for d in result.diagnostics if d.code == "dim-specialized"]
    assert finding.range.start.line == line_of(path, "if x.shape[0] == 4"), finding.message
