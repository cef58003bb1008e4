"""Through the real server: an export's time and memory limits are its file's own (its folder's
settings, its pyproject.toml's), one worker serving files with different limits (engine_host.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest_asyncio

from tests.conftest import WORKER_PYTHON

from .conftest import Session, start, stop

# One module that sleeps past a 1 s limit while it is traced (stopped by 4 s, busy or not), one
# whose inputs reserve 768 MB.
LIMITED = """
import time

import torch


class Sleepy(torch.nn.Module):
    def forward(self, x):
        time.sleep(6)
        return x + 1


class Big(torch.nn.Module):
    def forward(self, x):
        return x + 1


torch.export.export(Sleepy(), (torch.randn(4),))
torch.export.export(Big(), (torch.empty(768 * 1024 * 1024, dtype=torch.uint8),))
"""
LIMITS = {"export-timeout", "out-of-memory"}


@pytest_asyncio.fixture(loop_scope="session")
async def server(tmp_path: Path) -> AsyncIterator[Session]:
    """A server whose client sets no limit itself: the editor's explicit settings beat a project's."""
    settings: dict[str, Any] = {"debounceMs": 0}
    if WORKER_PYTHON:
        settings["python"] = WORKER_PYTHON
    session = await start(tmp_path.resolve(), settings)
    yield session
    await stop(session)


async def test_each_project_has_its_own_time_and_memory_limits(server: Session) -> None:
    server.write("tightlimits/pyproject.toml", "[tool.exportlens]\ntimeout = 1\nmemory-limit = 256\n")
    tight = await server.open("tightlimits/limited.py", LIMITED)
    assert {str(d.code) for d in tight} >= LIMITS, tight
    loose = await server.open("looselimits/limited.py", LIMITED)
    assert not {str(d.code) for d in loose} & LIMITS, "the defaults: 30 s, no memory cap"
    tight_again = await server.open("tightlimits/limited_again.py", LIMITED)
    assert {str(d.code) for d in tight_again} >= LIMITS, "the first file's limits did not stick"
