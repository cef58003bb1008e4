"""A job's time limit: CPU time on a busy machine, wall time for a job that waits; a job stopped at
its limit keeps the answer it had and says which pass ran out (worker/core/time_limit.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from exportlens.engine import Engine, EngineOptions
from tests.conftest import check, line_of, only

# Costs `seconds` of CPU time whatever the machine's speed, then refuses on a data-dependent branch.
COMPUTES_THEN_REFUSES = """
    import time
    import torch


    class Computes(torch.nn.Module):
        def forward(self, x):
            started = time.process_time()
            while time.process_time() - started < {seconds}:
                pass
            if x.sum() > 0:
                return x * 2
            return x

        def example_inputs(self):
            return (torch.ones(3),)
"""

WAITS = """
    import time
    import torch


    class Waits(torch.nn.Module):
        def forward(self, x):
            return x

        def example_inputs(self):
            time.sleep(1000)
            return (torch.ones(3),)
"""

# The first failure comes at once; past it (the search's retrace) a wait nothing can interrupt: the
# search's own budget cannot stop it, the worker does.
STUBBORN_AFTER_THE_FIRST = """
    import time
    import torch


    class Stubborn(torch.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                x = x * 2
            while True:
                try:
                    time.sleep(0.05)
                except BaseException:
                    pass
            return x

        def example_inputs(self):
            return (torch.ones(3),)
"""


@contextmanager
def sharing_one_cpu_with_a_busy_loop(engine_pid: int) -> Iterator[None]:
    """The worker (and the children it forks) and a busy loop on the same single CPU: the job gets
    about half of it, so its wall time is about twice its CPU time."""
    cpu = min(os.sched_getaffinity(0))
    saved = os.sched_getaffinity(engine_pid)
    os.sched_setaffinity(engine_pid, {cpu})
    burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        os.sched_setaffinity(burner.pid, {cpu})
        yield
    finally:
        burner.kill()
        burner.wait()
        os.sched_setaffinity(engine_pid, saved)


async def test_a_job_computing_on_a_busy_cpu_gets_its_time_in_cpu(write) -> None:
    """3 s of CPU under a 4 s limit, on a CPU shared with a busy loop (about 6 s of wall time): the
    check finishes with torch's answer instead of being stopped at 4 s of wall time."""
    path = write("computes.py", COMPUTES_THEN_REFUSES.format(seconds=3.0))
    engine = Engine(EngineOptions(timeout=4.0))
    try:
        await engine.worker()
        assert engine.worker_pid is not None
        with sharing_one_cpu_with_a_busy_loop(engine.worker_pid):
            result = await check(engine, path, mode="non-strict")
    finally:
        await engine.close()
    (module,) = result.modules
    assert module.status == "failed", [(d.code, d.message) for d in result.diagnostics]
    assert module.seconds > 4.0  # it did need more than its limit in wall time
    finding = only(result, "data-dependent-branch")
    assert finding.range.start.line == line_of(path, "if x.sum() > 0")


async def test_a_job_that_waits_is_stopped_at_its_limit_and_says_in_which_pass(write) -> None:
    path = write("waits.py", WAITS)
    engine = Engine(EngineOptions(timeout=3.0))
    try:
        result = await check(engine, path, mode="strict")
    finally:
        await engine.close()
    (module,) = result.modules
    assert (module.status, module.mode) == ("timeout", "strict")
    assert module.seconds < 3.0 + 2.0  # not given CPU time it does not use
    finding = only(result, "export-timeout")
    assert "(strict) ran out of time in building the example inputs" in finding.message


async def test_a_job_stopped_after_its_first_failure_keeps_it(write) -> None:
    """The search past the first failure ignores its own budget: the worker stops the child at the
    limit, and the first failure is still the module's answer, saying what ran out."""
    path = write("stubborn.py", STUBBORN_AFTER_THE_FIRST)
    engine = Engine(EngineOptions(timeout=6.0))
    try:
        result = await check(engine, path, mode="non-strict")
    finally:
        await engine.close()
    (module,) = result.modules
    assert module.status == "failed", [(d.code, d.message) for d in result.diagnostics]
    (finding,) = result.diagnostics
    assert finding.code == "data-dependent-branch"
    assert finding.range.start.line == line_of(path, "if x.sum() > 0")
    assert "the search for more failures ran out of the time limit" in finding.message
