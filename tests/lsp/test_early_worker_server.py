"""`serve --start-worker` (how the extension launches the server in a trusted workspace): the
server's engine runs its checks on the worker started before its imports (engine/process.py
adopts it; tests/engine/test_early_worker.py shows which worker runs the jobs)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import WORKER_PYTHON

from .conftest import start, stop
from .models import GUARDED


async def test_a_server_started_with_its_worker_publishes_the_failure(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    settings = {"debounceMs": 0} | ({"python": WORKER_PYTHON} if WORKER_PYTHON else {})
    session = await start(root, settings, start_worker=True)
    try:
        diagnostics = await session.open("early.py", GUARDED)
        assert [d.code for d in diagnostics] == ["data-dependent-branch"]
    finally:
        await stop(session)
