"""Who can use a worker daemon, and what replaces one that cannot be trusted or does not answer
(docs/daemon.md): real daemons and sockets, real torch; no mocks."""

from __future__ import annotations

import os
import signal
import socket
import stat
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from exportlens.engine.daemon_paths import peer_allowed, peer_credentials
from exportlens.engine.daemon_stop import daemon_running
from tests.conftest import WORKER_PYTHON

from .daemon_runs import check, gone, statuses, the_socket

pytestmark = pytest.mark.slow


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
