"""Reliability suite: hostile user code, bad input, long sessions, fuzzing, a second client.

Everything here drives the REAL server (`python -m exportlens serve`) over stdio with
pytest-lsp, against the real worker and real torch. Helpers come from tests/lsp/conftest.py;
tests wait on `exportlens/fileChecked`, never on time.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest_asyncio
from pytest_lsp import LanguageClient

from ..lsp.conftest import SERVER_DIR, WAIT, Session, initialize, make_client
from ..procs import alive, descendants

CLEAN = """
    import torch


    class Clean{n}(torch.nn.Module):
        def forward(self, x):
            return x * 2 + {n}

        def example_inputs(self):
            return (torch.ones(3),)
"""


async def start_server(
    root: Path, settings: dict[str, Any], cwd: Path | None = None, env: dict[str, str] | None = None
) -> Session:
    """`tests.lsp.conftest.start`, plus the server's working directory and environment."""
    client = make_client()
    server_env = {**os.environ, "PYTHONPATH": SERVER_DIR, **(env or {})}
    await client.start_io(sys.executable, "-m", "exportlens", "serve", env=server_env, cwd=str(cwd or root))
    assert isinstance(client, LanguageClient)
    return await initialize(client, root, settings)


async def stop_server(session: Session) -> None:
    """Shut down politely; then the server and everything it started must be gone."""
    pid = server_pid(session)
    tree = [p for p, _ in descendants(pid, spares=True)] if pid else []
    await session.client.shutdown_session()
    await session.client.stop()
    if pid:
        await wait_gone([pid, *tree])


def server_pid(session: Session) -> int | None:
    proc = getattr(session.client, "_server", None)
    return proc.pid if proc is not None else None


async def wait_gone(pids: list[int]) -> None:
    async def poll() -> None:
        while any(alive(p) for p in pids):
            await asyncio.sleep(0.05)

    try:
        await asyncio.wait_for(poll(), WAIT)
    except asyncio.TimeoutError:
        raise AssertionError(f"still running: {[p for p in pids if alive(p)]}") from None


async def assert_only_worker_left(session: Session) -> dict[str, Any]:
    """The server's process tree is the server and its idle worker: no job child, no zombie.

    Job children are reaped right after their result is sent, which can be a moment after
    the server published: poll (bounded by WAIT), never sleep a fixed time."""
    status = await session.command("exportlens.status")
    pid, worker = status["pid"], status["workerPid"]

    def extra() -> list[tuple[int, str]]:
        return [(p, s) for p, s in descendants(pid) if p != worker]

    async def poll() -> None:
        while extra() or (worker is not None and not alive(worker)):
            await asyncio.sleep(0.05)

    try:
        await asyncio.wait_for(poll(), WAIT)
    except asyncio.TimeoutError:
        raise AssertionError(f"left behind under server {pid} (worker {worker}): {extra()}") from None
    return status  # type: ignore[no-any-return]


async def clean_export_works(session: Session, name: str) -> None:
    """A clean module of another file exports, with no diagnostic at all."""
    n = abs(hash(name)) % 1000
    diagnostics = await session.open(name, CLEAN.format(n=n))
    assert diagnostics == [], [(d.code, d.message) for d in diagnostics]
    lenses = await session.lenses((session.root / name).resolve().as_uri())
    assert any(title.startswith("✓ exports") for title in lenses), lenses
    session.close((session.root / name).resolve().as_uri())


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def hostile_server(tmp_path_factory: Any) -> AsyncIterator[Session]:
    """Short export timeout so hangs end quickly; an address-space cap so a 100 GB allocation
    fails even where the kernel overcommits."""
    root = tmp_path_factory.mktemp("hostile").resolve()
    session = await start_server(root, {"debounceMs": 0, "timeoutSeconds": 8, "memoryLimitMb": 4096})
    yield session
    await stop_server(session)
