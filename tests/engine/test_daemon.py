"""The worker daemon (docs/daemon.md), through `exportlens check` as a user runs it: real daemons,
real workers, real torch; each test has its own runtime folder and stops what it started."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from exportlens.engine.daemon_client import daemon_running, stop_daemons
from exportlens.engine.daemon_paths import peer_allowed, peer_credentials
from tests.conftest import WORKER_PYTHON
from tests.paths import ROOT

pytestmark = pytest.mark.slow

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


@pytest.fixture
def runtime() -> Iterator[Path]:
    """A short runtime folder (socket paths are limited to ~100 bytes); no daemon outlives it."""
    with tempfile.TemporaryDirectory(prefix="eld-") as folder:
        runtime = Path(folder) / "rt"
        try:
            yield runtime
        finally:
            stop_daemons(runtime)


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


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "model.py"
    path.write_text(CLEAN)
    return path


def test_a_second_run_uses_the_first_runs_daemon(runtime: Path, model: Path) -> None:
    first = check(runtime, model)
    second = check(runtime, model)
    assert statuses(first) == statuses(second) == ["exported"], first["stderr"]
    assert first["daemon"]["pid"] == second["daemon"]["pid"], "the second run started a daemon of its own"
    assert (first["daemon"]["clients"], second["daemon"]["clients"]) == (1, 2)
    assert daemon_running(second["daemon"]["pid"]), "the daemon outlives the run"
    assert stat.S_IMODE(runtime.stat().st_mode) == 0o700
    assert stat.S_IMODE(the_socket(runtime).stat().st_mode) == 0o600


def test_no_daemon_starts_none(runtime: Path, model: Path) -> None:
    report = check(runtime, model, "--no-daemon")
    assert statuses(report) == ["exported"], report["stderr"]
    assert report["daemon"] is None
    assert not list(runtime.glob("*.sock")) if runtime.exists() else True


def test_a_crashed_daemons_stale_socket_is_replaced(runtime: Path, model: Path) -> None:
    crashed = check(runtime, model)["daemon"]["pid"]
    os.kill(crashed, signal.SIGKILL)
    assert gone(crashed)
    assert the_socket(runtime).exists(), "the crashed daemon left its socket file"
    report = check(runtime, model)
    assert statuses(report) == ["exported"], report["stderr"]
    assert report["daemon"]["pid"] != crashed and report["daemon"]["clients"] == 1


def test_a_hung_daemon_is_replaced(runtime: Path, model: Path) -> None:
    hung = check(runtime, model)["daemon"]["pid"]
    os.kill(hung, signal.SIGSTOP)
    try:
        report = check(runtime, model)
    finally:
        if daemon_running(hung):
            os.kill(hung, signal.SIGCONT)
    assert statuses(report) == ["exported"], report["stderr"]
    assert report["daemon"]["pid"] != hung
    assert gone(hung), "the hung daemon was killed"


def test_wrong_permissions_are_refused_and_replaced(runtime: Path, model: Path) -> None:
    first = check(runtime, model)["daemon"]["pid"]
    sock = the_socket(runtime)
    os.chmod(sock, 0o666)  # anyone could open it: not connected to
    second = check(runtime, model)
    assert second["daemon"]["pid"] != first and second["daemon"]["clients"] == 1
    assert stat.S_IMODE(the_socket(runtime).stat().st_mode) == 0o600
    assert gone(first), "a daemon whose socket was replaced exits"
    # A folder others can enter: locked again and emptied before a socket in it is trusted.
    os.chmod(runtime, 0o755)
    (runtime / "planted").write_text("")
    third = check(runtime, model)
    assert third["daemon"]["pid"] != second["daemon"]["pid"] and third["daemon"]["clients"] == 1
    assert stat.S_IMODE(runtime.stat().st_mode) == 0o700
    assert not (runtime / "planted").exists()
    assert gone(second["daemon"]["pid"])


def test_a_peer_of_another_uid_is_refused() -> None:
    """The check both ends make, on a real connected socket pair: the peer's real uid must be
    the one expected (a test cannot run as another user: the expected uid is forged)."""
    ours, theirs = socket.socketpair(socket.AF_UNIX)
    with ours, theirs:
        assert peer_credentials(ours) == (os.getpid(), os.getuid())
        assert peer_allowed(ours)
        assert not peer_allowed(ours, uid=os.getuid() + 1)


def test_a_daemon_whose_packages_changed_is_not_used(runtime: Path, model: Path, tmp_path: Path) -> None:
    """An interpreter of its own (a venv seeing the test interpreter's packages through a .pth):
    a package installed in it retires its daemon."""
    venv = tmp_path / "venv"
    subprocess.run([WORKER_PYTHON or sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    purelib = subprocess.run(
        [WORKER_PYTHON or sys.executable, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (site / "torch_from_test.pth").write_text(purelib + "\n")
    first = check(runtime, model, python=python)
    assert statuses(first) == ["exported"], first["stderr"]
    (site / "newly_installed-1.0.dist-info").mkdir()
    assert gone(first["daemon"]["pid"]), "the daemon saw its packages change and exited"
    second = check(runtime, model, python=python)
    assert second["daemon"]["pid"] != first["daemon"]["pid"], first["stderr"]
    assert statuses(second) == ["exported"]
    assert sysconfig.get_paths()  # the test's own interpreter is untouched


def test_an_idle_daemon_exits(runtime: Path, model: Path) -> None:
    report = check(runtime, model, "--daemon-idle", "1")
    assert gone(report["daemon"]["pid"]), "idle for 1 s: it exits"
    assert not list(runtime.glob("*.sock"))


def test_concurrent_runs_get_their_own_results(runtime: Path, tmp_path: Path) -> None:
    """Two runs at once, from cold: one daemon (started under the lock), each its own answers."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    clean, failing = tmp_path / "a" / "clean.py", tmp_path / "b" / "failing.py"
    clean.write_text(CLEAN)
    failing.write_text(FAILING)
    runs = [start(runtime, clean), start(runtime, failing)]
    reports = [json.loads(run.communicate(timeout=300)[0]) for run in runs]
    assert reports[0]["daemon"]["pid"] == reports[1]["daemon"]["pid"]
    assert sorted(r["daemon"]["clients"] for r in reports) == [1, 2]
    assert [f["path"] for f in reports[0]["files"]] == ["clean.py"]
    assert [f["path"] for f in reports[1]["files"]] == ["failing.py"]
    assert statuses(reports[0]) == ["exported"] and reports[0]["files"][0]["diagnostics"] == []
    assert [d["code"] for d in reports[1]["files"][0]["diagnostics"]][:1] == ["data-dependent-branch"]


READS_ITS_FOLDER = """
import os
import torch

# What a run's own worker lets user code see: the folder and environment of the run.
if open("name.txt").read() != os.environ["EXPORTLENS_TEST_NAME"]:
    raise RuntimeError("not the run's own folder or environment")


class Fine(torch.nn.Module):
    def forward(self, x):
        return x.relu()

torch.export.export(Fine(), (torch.ones(3),))
"""


def test_each_run_has_its_own_folder_and_environment(runtime: Path, tmp_path: Path) -> None:
    model = tmp_path / "model.py"
    model.write_text(READS_ITS_FOLDER)
    reports = []
    for name in ("first", "second"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "name.txt").write_text(name)
        reports.append(check(runtime, model, cwd=tmp_path / name, env={"EXPORTLENS_TEST_NAME": name}))
    assert reports[0]["daemon"]["pid"] == reports[1]["daemon"]["pid"]
    for report in reports:
        assert statuses(report) == ["exported"], report["files"][0]["diagnostics"]
