"""The language server and the worker daemon (docs/daemon.md), through the real server over
stdio, the real daemon and real workers: a server uses the daemon that runs for its interpreter
(the CLI's too), starts one for later once its own worker is warm, and never with the setting
off; a CLI run at the same time gets its own results; cancelling and a dead worker still work.
Each test has its own runtime folder and stops the daemons in it."""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from exportlens.engine.daemon_stop import daemon_running, stop_daemons
from tests.conftest import WORKER_PYTHON
from tests.engine.daemon_runs import CLEAN, FAILING, check, gone, statuses
from tests.engine.daemon_runs import start as start_cli
from tests.procs import descendants, leftovers, until_a_child_idles

from .conftest import WAIT, Session, start, stop
from .test_cancel_export import SLOW

pytestmark = pytest.mark.slow


async def serve(root: Path, runtime: Path, daemon: bool, start_worker: bool = False) -> Session:
    root.mkdir(parents=True, exist_ok=True)
    settings: dict[str, Any] = {"debounceMs": 0, "timeoutSeconds": 60, "daemon": daemon}
    if WORKER_PYTHON:
        settings["python"] = WORKER_PYTHON
    env = {"EXPORTLENS_RUNTIME_DIR": str(runtime)}
    return await start(root.resolve(), settings, start_worker=start_worker, env=env)


def codes(diagnostics: Any) -> list[Any]:
    return [d.code for d in diagnostics]


async def sockets(runtime: Path, within: float = WAIT) -> list[Path]:
    deadline = time.monotonic() + within
    while not (found := sorted(runtime.glob("*.sock"))) and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    return found


async def test_a_server_starts_a_daemon_once_warm_and_none_when_off(tmp_path: Path) -> None:
    with (
        tempfile.TemporaryDirectory(prefix="eld-") as on_folder,
        tempfile.TemporaryDirectory(prefix="eld-") as off_folder,
    ):
        on_runtime, off_runtime = Path(on_folder) / "rt", Path(off_folder) / "rt"
        on, off = await asyncio.gather(
            serve(tmp_path / "on", on_runtime, daemon=True),
            serve(tmp_path / "off", off_runtime, daemon=False),
        )
        try:
            found = await asyncio.gather(on.open("m.py", FAILING), off.open("m.py", FAILING))
            assert codes(found[0])[:1] == codes(found[1])[:1] == ["data-dependent-branch"]
            # none ran: the first check did not wait for one, its own worker answered
            assert (await on.command("exportlens.status"))["daemon"] is None
            assert await sockets(on_runtime), "a daemon for the next session, once the worker is warm"
            # the other server had as long to start one: with the setting off it started none
            assert not (off_runtime.exists() and list(off_runtime.glob("*.sock")))
        finally:
            await asyncio.gather(stop(on), stop(off))
            stop_daemons(on_runtime)
            stop_daemons(off_runtime)


async def test_a_server_answers_from_the_running_daemon(runtime: Path, tmp_path: Path) -> None:
    """The CLI's daemon serves the editor too; a CLI run while the editor uses it gets its own."""
    clean = tmp_path / "cli" / "clean.py"
    clean.parent.mkdir()
    clean.write_text(CLEAN)
    first = check(runtime, clean)
    pid = first["daemon"]["pid"]
    # as the extension starts it: its early worker is not needed once the daemon answers
    server = await serve(tmp_path / "ws", runtime, daemon=True, start_worker=True)
    try:
        assert codes(await server.open("guarded.py", FAILING))[:1] == ["data-dependent-branch"]
        status = await server.command("exportlens.status")
        assert status["daemon"] == {"pid": pid, "clients": 2}, status
        # the early worker, and the worker started while the daemon was looked for, are stopped
        assert descendants(status["pid"], spares=True) == []
        # a CLI run and an editor check at once: each gets its own answers
        uri = (server.root / "guarded.py").resolve().as_uri()
        cli = start_cli(runtime, clean)
        mark = len(server.record.checked)
        version = server.change(uri, FAILING + "\n")
        again = await server.wait_checked(uri, version, mark)
        out, err = await asyncio.to_thread(cli.communicate, timeout=300)
        report = json.loads(out)
        assert report["daemon"]["pid"] == pid, err
        assert statuses(report) == ["exported"] and report["files"][0]["diagnostics"] == []
        assert codes(again)[:1] == ["data-dependent-branch"]
        # turned off: the next check has a worker of the server's own
        await server.set_settings(daemon=False)
        mark = len(server.record.checked)
        version = server.change(uri, FAILING + "\n\n")
        assert codes(await server.wait_checked(uri, version, mark))[:1] == ["data-dependent-branch"]
        status = await server.command("exportlens.status")
        assert status["daemon"] is None and status["workerPid"], status
    finally:
        await stop(server)
    assert daemon_running(pid), "the daemon outlives the editor session"


async def test_a_server_configured_off_never_uses_a_running_daemon(runtime: Path, tmp_path: Path) -> None:
    """The client's settings (daemon off) are pulled after `initialized`: a first check that
    started before they came uses no daemon either, though one runs for this interpreter."""
    clean = tmp_path / "clean.py"
    clean.write_text(CLEAN)
    assert check(runtime, clean)["daemon"]["pid"]
    server = await serve(tmp_path / "ws", runtime, daemon=False)
    try:
        assert codes(await server.open("guarded.py", FAILING))[:1] == ["data-dependent-branch"]
        status = await server.command("exportlens.status")
        assert status["daemon"] is None and status["workerPid"], status
    finally:
        await stop(server)


KILLS_WORKER = """
    import os
    import signal

    import torch


    class Fatal(torch.nn.Module):
        def forward(self, x):
            os.kill(os.getppid(), signal.SIGKILL)  # the job's child kills the worker
            return x

        def example_inputs(self):
            return (torch.ones(2),)
"""


async def test_a_dead_daemon_worker_falls_back_to_an_own_worker(runtime: Path, tmp_path: Path) -> None:
    clean = tmp_path / "clean.py"
    clean.write_text(CLEAN)
    pid = check(runtime, clean)["daemon"]["pid"]
    server = await serve(tmp_path / "ws", runtime, daemon=True)
    try:
        assert await server.open("fine.py", CLEAN) == []
        before = await server.command("exportlens.status")
        assert before["daemon"]["pid"] == pid
        assert "worker-crashed" in codes(await server.open("fatal.py", KILLS_WORKER))
        # the daemon exits with its worker; the server's next check has a worker of its own
        uri = (server.root / "fine.py").resolve().as_uri()
        mark = len(server.record.checked)
        version = server.change(uri, CLEAN + "\n")
        assert await server.wait_checked(uri, version, mark) == []
        after = await server.command("exportlens.status")
        assert after["daemon"] is None and after["workerPid"] not in (None, before["workerPid"])
        assert gone(pid), "the daemon exits with its worker"
        errors = [m for m in server.client.messages if m.type == types.MessageType.Error]
        assert errors == [], "a daemon's failure is logged, never shown"
    finally:
        await stop(server)


async def test_cancel_export_through_the_daemon(runtime: Path, tmp_path: Path) -> None:
    """The Cancel of "Export this module" reaches the daemon's worker: its child is killed."""
    clean = tmp_path / "clean.py"
    clean.write_text(CLEAN)
    pid = check(runtime, clean)["daemon"]["pid"]
    server = await serve(tmp_path / "ws", runtime, daemon=True)
    try:
        assert await server.open("slow_export.py", SLOW) == []
        status = await server.command("exportlens.status")
        assert status["daemon"]["pid"] == pid
        uri = (server.root / "slow_export.py").resolve().as_uri()
        at = {"line": 9, "character": 8}  # in class Slow
        flag = server.root / "slow.flag"
        flag.write_text("")
        try:
            exporting = asyncio.ensure_future(server.command("exportlens.exportModule", uri, at))
            await until_a_child_idles(status["workerPid"])  # inside forward's sleep
            assert not exporting.done()
            assert await server.command("exportlens.cancelExport", uri, at) == {"cancelled": True}
            result = await asyncio.wait_for(exporting, 15)
            assert result["status"] == "cancelled", result
            assert await leftovers(status["workerPid"]) == []
        finally:
            flag.unlink()
        after = await server.command("exportlens.exportModule", uri, at)
        assert after["status"] == "exported", after
        assert (await server.command("exportlens.status"))["daemon"]["pid"] == pid
    finally:
        await stop(server)


async def test_an_untrusted_window_never_uses_a_daemon(runtime: Path, tmp_path: Path) -> None:
    clean = tmp_path / "clean.py"
    clean.write_text(CLEAN)
    pid = check(runtime, clean)["daemon"]["pid"]
    root = tmp_path / "ws"
    root.mkdir()
    settings = {"debounceMs": 0, "daemon": True}
    env = {"EXPORTLENS_RUNTIME_DIR": str(runtime)}
    server = await start(root.resolve(), settings, {"trusted": False, "settings": settings}, env=env)
    try:
        diagnostics = await server.open("net.py", FAILING)
        assert [d.code for d in diagnostics] == ["untrusted-workspace"]
        status = await server.command("exportlens.status")
        assert status["daemon"] is None and status["workerPid"] is None
    finally:
        await stop(server)
    # the daemon's next client is the second: the untrusted window never connected
    assert check(runtime, clean)["daemon"] == {"pid": pid, "clients": 2}
