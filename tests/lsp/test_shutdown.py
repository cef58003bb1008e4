"""Shutdown through the real server: once `shutdown` has returned, nothing it started runs.

Each test starts its own server (it ends it). The extension gives the server 5 s to answer
`shutdown` (`client.stop(5000)`), then gives up; the server's own wait for its worker is
bounded (CLOSE_GRACE, 2 s), so an answer well before that deadline is behaviour, not a speed
target. The figures themselves are printed (`pytest -s`), not asserted.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest_asyncio
from lsprotocol import types

from ..procs import alive, descendants
from .conftest import SERVER_DIR, WAIT, Session, initialize, make_client
from .models import MLP

CLIENT_DEADLINE = 4.0  # seconds: under the extension's 5 s


def slow_modules(count: int) -> str:
    """`count` exports that never end: two run (the worker's parallelism), the others wait."""
    classes = "".join(
        f"""

    class Slow{n}(torch.nn.Module):
        def example_inputs(self):
            return (torch.ones(2),)

        def forward(self, x):
            time.sleep(600)
            return x + {n}
"""
        for n in range(count)
    )
    return "\n    import time\n\n    import torch\n" + classes


@pytest_asyncio.fixture
async def fresh(tmp_path: Path) -> AsyncIterator[Session]:
    """A server of the test's own, which the test shuts down (killed here if it failed first)."""
    client = make_client()
    env = {**os.environ, "PYTHONPATH": SERVER_DIR}
    await client.start_io(sys.executable, "-m", "exportlens", "serve", env=env, cwd=str(tmp_path))
    session = await initialize(client, tmp_path.resolve(), {"debounceMs": 0, "timeoutSeconds": 60})
    yield session
    proc = client._server
    if proc is not None and proc.returncode is None:
        proc.kill()
        await proc.wait()
        await client.stop()


def server_pid(session: Session) -> int:
    proc = session.client._server
    assert proc is not None
    return proc.pid


def did_open(session: Session, name: str, source: str) -> None:
    """Open a file without waiting for its check."""
    uri, text = session.write(name, source)
    session.versions[uri] = 1
    session.client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
        )
    )


async def shut_down(session: Session, what: str) -> None:
    """shutdown, then exit: nothing of the server's tree is running once shutdown returned,
    and the worker went by itself (it was not killed)."""
    pid = server_pid(session)
    tree = [p for p, _ in descendants(pid, spares=True)]
    assert tree, "the server started no worker"
    began = time.monotonic()
    await session.client.shutdown_async(None)
    answered = time.monotonic() - began
    left = [p for p in tree if alive(p)] + [p for p, _ in descendants(pid, spares=True) if p not in tree]
    session.client.exit(None)
    proc = session.client._server
    assert proc is not None
    code = await asyncio.wait_for(proc.wait(), WAIT)
    gone = time.monotonic() - began
    await session.client.stop()
    print(f"\n{what}: shutdown answered in {answered:.3f} s, server gone {gone:.3f} s after shutdown")
    assert left == [], f"still running after shutdown returned: {left} (tree was {tree})"
    assert answered < CLIENT_DEADLINE, answered
    assert code == 0
    killed = [m.message for m in session.client.log_messages if "did not exit" in m.message]
    assert killed == []


async def test_shutdown_with_a_warm_idle_worker(fresh: Session) -> None:
    session = fresh
    await session.open("idle.py", MLP)
    pid = server_pid(session)
    # the worker keeps a spare job child when idle: it must go too
    await session.until(lambda: len(descendants(pid, spares=True)) > len(descendants(pid)))
    await shut_down(session, "idle worker and its spare")


async def test_shutdown_while_exports_run_and_wait(fresh: Session) -> None:
    session = fresh
    did_open(session, "slow.py", slow_modules(4))
    pid = server_pid(session)
    await session.until(lambda: len(descendants(pid)) >= 3)  # the worker and two running jobs
    await shut_down(session, "two exports running, two queued")


async def test_shutdown_while_the_worker_loads_torch(fresh: Session) -> None:
    session = fresh
    did_open(session, "early.py", MLP)
    pid = server_pid(session)
    await session.until(lambda: descendants(pid) != [])
    status = await session.command("exportlens.status")
    assert status["workerPid"] is None, "the worker was ready already: this tests nothing"
    await shut_down(session, "worker still starting")
