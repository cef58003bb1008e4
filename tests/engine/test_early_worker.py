"""`serve --start-worker`: the worker started before the server's imports, adopted by its engine.

The engine adopts the early worker only when it would start the same command with the same
options (the editor engine's defaults: EngineOptions() and early_worker.start agree), and runs
its jobs on it; another interpreter or other options kill it and start their own; an untrusted
workspace kills it before any engine exists.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from exportlens import early_worker
from exportlens.check import check_file
from exportlens.check.jobs import CheckOptions
from exportlens.engine import Engine, EngineOptions
from exportlens.lsp.app import ExportLensServer
from tests.conftest import WORKER_PYTHON

PYTHON = WORKER_PYTHON or sys.executable  # what the engine runs when no interpreter is set

pytestmark = pytest.mark.slow  # each test starts a worker


def _started() -> int:
    early_worker.start(PYTHON)
    assert early_worker._early is not None
    return early_worker._early[2].pid


async def test_the_engine_adopts_the_early_worker_and_runs_jobs_on_it(write) -> None:
    pid = _started()
    path = write(
        "early.py",
        """
        import torch

        class Net(torch.nn.Module):
            def forward(self, x):
                if x.sum() > 0:
                    return x
                return -x

            def example_inputs(self):
                return (torch.randn(2, 3),)
    """,
    )
    engine = Engine(EngineOptions(python=WORKER_PYTHON, timeout=60.0))
    try:
        worker = await engine.worker()
        assert worker.pid == pid and early_worker._early is None
        result = await check_file(engine, path, None, CheckOptions(roots=[str(Path(path).parent)]))
        assert [d.code for d in result.diagnostics] == ["data-dependent-branch"]
        assert engine.worker_pid == pid
    finally:
        await engine.close()
    assert worker.pid is None or not worker.alive


async def test_other_options_kill_the_early_worker() -> None:
    pid = _started()
    proc = early_worker._early[2] if early_worker._early else None
    engine = Engine(EngineOptions(python=WORKER_PYTHON, spares=False))
    try:
        worker = await engine.worker()
        assert worker.pid != pid and worker.alive
        assert proc is not None and proc.poll() is not None  # killed and reaped
    finally:
        await engine.close()


def test_an_untrusted_workspace_kills_the_early_worker() -> None:
    _started()
    proc = early_worker._early[2] if early_worker._early else None
    ExportLensServer().read_init_options({"trusted": False})
    assert early_worker._early is None and proc is not None and proc.poll() is not None
