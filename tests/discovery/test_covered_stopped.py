"""An export job stopped at its time limit, or whose child dies, still covers what it built.

The child says which class it exports and the workspace classes in it as soon as the module is
built (worker/job/child.py `Reports.exports`); the worker (and the engine, for a worker that dies)
keeps it for the answer the child never gives. Without it a timed-out export covered nothing and
the class it exports got a second job of its own on guessed inputs, and a "could not check" line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from exportlens.check import CheckOptions, check_file
from exportlens.engine import Engine, EngineOptions
from tests.conftest import WORKER_PYTHON

SCRIPT = """
    import os
    import time

    import torch
    import torch.nn as nn


    class Block(nn.Module):
        def __init__(self, width):
            super().__init__()
            self.fc = nn.Linear(width, width)

        def forward(self, x):
            return torch.relu(self.fc(x))


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 8)
            self.block = Block(8)

        def forward(self, x):
            {stop}
            return self.block(self.fc(x))


    MODELS = {"small": lambda: Net()}  # a registry: only running tells what `create` builds


    def create(name):
        return MODELS[name]()


    if __name__ == "__main__":
        model = create("small")
        torch.export.export(model, (torch.randn(2, 8),))
"""

STOPS = {
    "timeout": ("time.sleep(600)", "timeout"),  # waits: stopped by its wall-time limit
    "crash": ("os._exit(3)", "crashed"),  # the child dies in the export
}


@pytest.mark.parametrize("how", list(STOPS))
async def test_a_stopped_export_still_covers_its_class_and_parts(write, how: str) -> None:
    stop, status = STOPS[how]
    path = write(f"stopped_{how}.py", SCRIPT.replace("{stop}", stop))
    engine = Engine(EngineOptions(python=WORKER_PYTHON, timeout=4.0))
    try:
        result = await check_file(
            engine, path, None, CheckOptions(mode="non-strict", roots=[str(Path(path).parent)])
        )
    finally:
        await engine.close()
    by_name = {m.name: m for m in result.modules}
    (job,) = [m for m in result.modules if m.tree is not None]
    assert job.status == status
    assert job.tree is not None and job.tree["root"]["class"] == "Net"
    assert {p["class"] for p in job.tree["parts"]} == {"Block"}
    # Net is exported by that job and Block is part of it: no job on a guess, no "could not check"
    assert by_name["Net"].status == "skipped"
    assert by_name["Block"].status == "skipped"
    # one finding, the export's, naming the class it exports
    (finding,) = result.diagnostics
    assert finding.code in ("export-timeout", "worker-crashed")
    assert "`Net` (exported as `model`)" in finding.message
