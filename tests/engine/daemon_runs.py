"""Helpers of the worker daemon's tests (test_daemon.py, test_daemon_security.py): `exportlens
check` as a user runs it, in a runtime folder of the test's own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from exportlens.engine.daemon_stop import daemon_running
from tests.conftest import WORKER_PYTHON
from tests.paths import ROOT

CLEAN = """
import torch

class Fine(torch.nn.Module):
    def forward(self, x):
        return x.relu()

torch.export.export(Fine(), (torch.ones(3),))
"""
FAILING = """
import torch

class Guarded(torch.nn.Module):
    def forward(self, x):
        if (x < 0).any():
            return x.abs()
        return x.tanh()

torch.export.export(Guarded(), (torch.ones(3),))
"""


def check(
    runtime: Path, path: Path, *flags: str, python: str | None = WORKER_PYTHON, **where: Any
) -> dict[str, Any]:
    completed = start(runtime, path, *flags, python=python, **where).communicate(timeout=300)
    return dict(json.loads(completed[0]), stderr=completed[1])


def start(
    runtime: Path,
    path: Path,
    *flags: str,
    python: str | None = WORKER_PYTHON,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.Popen[str]:
    """`exportlens check PATH --format json --no-cache FLAGS…` in `cwd` (default: PATH's folder),
    with `env` added to this process's environment."""
    env = dict(
        os.environ, **(env or {}), PYTHONPATH=str(ROOT / "server"), EXPORTLENS_RUNTIME_DIR=str(runtime)
    )
    command = [
        sys.executable,
        "-m",
        "exportlens",
        "check",
        str(path),
        "--format",
        "json",
        "--no-cache",
        *flags,
    ]
    if python:
        command += ["--python", python]
    return subprocess.Popen(
        command, cwd=cwd or path.parent, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def statuses(report: dict[str, Any]) -> list[str]:
    return [m["status"] for f in report["files"] for m in f["modules"]]


def the_socket(runtime: Path) -> Path:
    (found,) = runtime.glob("*.sock")
    return found


def gone(pid: int, within: float = 20.0) -> bool:
    deadline = time.monotonic() + within
    while daemon_running(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not daemon_running(pid)
