"""One environment, one daemon and one results store (docs/daemon.md, issue 42): `python -m
exportlens`, `python3 -m exportlens` and the `exportlens` script of one venv, and the language
server started with yet another spelling of its interpreter, all use the daemon the first run
started; `exportlens daemon status` shows that one, `exportlens daemon stop` stops it. Real CLI
runs, a real server over stdio, real daemons and workers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from exportlens.engine.daemon_stop import daemon_running
from tests.conftest import WORKER_PYTHON
from tests.engine.daemon_runs import CLEAN, FAILING, gone

from .conftest import SERVER_DIR, start, stop

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent  # the venv the tests run in (`make setup`'s)
SPELLINGS = {
    "python -m": [str(BIN / "python"), "-m", "exportlens"],
    "python3 -m": [str(BIN / "python3"), "-m", "exportlens"],
    "script": [str(BIN / "exportlens")],
}


def run(runtime: Path, store: Path, spelling: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The CLI as the user types it, in `cwd`; a worker interpreter only if the suite has one."""
    env = dict(os.environ, PYTHONPATH=SERVER_DIR, EXPORTLENS_RUNTIME_DIR=str(runtime))
    env["EXPORTLENS_CACHE_DIR"] = str(store)
    given = ["--python", WORKER_PYTHON] if WORKER_PYTHON and args[:1] == ("check",) else []
    return subprocess.run(
        [*SPELLINGS[spelling], *args, *given], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def daemons(runtime: Path, store: Path, cwd: Path) -> list[dict[str, Any]]:
    listed = run(runtime, store, "script", "daemon", "status", "--format", "json", cwd=cwd)
    assert listed.returncode == 0, listed.stderr
    found: list[dict[str, Any]] = json.loads(listed.stdout)
    return found


async def test_every_spelling_of_one_venv_shares_one_daemon_and_store(runtime: Path, tmp_path: Path) -> None:
    for name, command in SPELLINGS.items():
        assert Path(command[0]).exists(), f"`make setup` makes {name}'s {command[0]}"
    work, store = tmp_path / "work", tmp_path / "store"
    work.mkdir()
    (work / "model.py").write_text(CLEAN)
    first = run(runtime, store, "python -m", "check", "model.py", "--format", "json", cwd=work)
    assert first.returncode == 0, first.stderr
    pid = json.loads(first.stdout)["daemon"]["pid"]
    # another spelling: the same environment, so the store answers (no export at all)
    cached = run(runtime, store, "python3 -m", "check", "model.py", cwd=work)
    assert cached.returncode == 0 and "from the cache" in cached.stderr, cached.stderr
    # and when it exports, it asks the same daemon
    fresh = run(runtime, store, "script", "check", "model.py", "--format", "json", "--no-cache", cwd=work)
    assert json.loads(fresh.stdout)["daemon"] == {"pid": pid, "clients": 2}, fresh.stderr
    (listed,) = daemons(runtime, store, work)
    assert listed["pid"] == pid and listed["prefix"] == sys.prefix and listed["torch"], listed
    assert listed["clients"] == 2 and listed["memory_bytes"] > 100 * 2**20, listed
    assert listed["idle_seconds"] < 60, listed

    # the editor, its interpreter spelled `python3`: the same daemon again
    settings: dict[str, Any] = {"debounceMs": 0, "timeoutSeconds": 60, "daemon": True}
    settings["python"] = WORKER_PYTHON or str(BIN / "python3")
    env = {"EXPORTLENS_RUNTIME_DIR": str(runtime), "EXPORTLENS_CACHE_DIR": str(store)}
    server = await start((tmp_path / "ws").resolve(), settings, env=env)
    try:
        (server.root / "guarded.py").parent.mkdir(parents=True, exist_ok=True)
        found = await server.open("guarded.py", FAILING)
        assert [d.code for d in found][:1] == ["data-dependent-branch"]
        status = await server.command("exportlens.status")
        assert status["daemon"] == {"pid": pid, "clients": 3}, status
    finally:
        await stop(server)
    assert [d["pid"] for d in daemons(runtime, store, work)] == [pid], "still one daemon"

    stopped = run(runtime, store, "python3 -m", "daemon", "stop", cwd=work)
    assert stopped.returncode == 0 and f"pid {pid}" in stopped.stdout, stopped
    assert gone(pid) and not daemon_running(pid)
    after = run(runtime, store, "python -m", "daemon", "status", cwd=work)
    assert after.stdout.startswith("no worker daemon runs"), after.stdout
