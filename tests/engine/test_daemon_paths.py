"""Where a worker daemon listens and which daemon a run may use (engine/daemon_paths.py): real
folders, files and sockets."""

from __future__ import annotations

import os
import socket
import stat
import tempfile
from pathlib import Path

import pytest

from exportlens.engine.daemon_paths import (
    DaemonUnavailable,
    daemon_key,
    flags_for,
    secure_folder,
    socket_file_ok,
)


def test_the_worker_options_and_its_environment_name_the_daemon(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EXPORTLENS_START", raising=False)
    plain = daemon_key("env", flags_for(2, True, True))
    assert plain == daemon_key("env", flags_for(2, True, True))
    assert plain != daemon_key("other env", flags_for(2, True, True))
    assert plain != daemon_key("env", flags_for(2, False, True))
    # the warm-up before a first job (the CLI's, not the editor's) names no daemon: they share one
    assert plain == daemon_key("env", flags_for(2, True, False))
    monkeypatch.setenv("EXPORTLENS_START", "spawn")  # the worker reads it: another daemon
    assert plain != daemon_key("env", flags_for(2, True, True))
    monkeypatch.delenv("EXPORTLENS_START")
    monkeypatch.delenv("PYTHONPATH", raising=False)
    assert plain == daemon_key("env", flags_for(2, True, True))
    monkeypatch.setenv("PYTHONPATH", "/work/shadow")  # a torch.py there is another torch
    assert plain != daemon_key("env", flags_for(2, True, True))
    with pytest.raises(DaemonUnavailable):
        daemon_key("", flags_for(2, True, True))  # the interpreter could not be asked


def test_a_folder_others_can_enter_is_locked_and_emptied(tmp_path: Path) -> None:
    folder = secure_folder(tmp_path / "run")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    os.chmod(folder, 0o777)
    (folder / "planted.sock").write_text("")
    assert secure_folder(folder) == folder
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700 and not list(folder.iterdir())


def test_a_symlink_is_not_a_folder_of_ours(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    (tmp_path / "run").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(DaemonUnavailable):
        secure_folder(tmp_path / "run")


def test_only_a_private_socket_of_ours_is_used() -> None:
    with tempfile.TemporaryDirectory(prefix="eld-") as tmp:
        path = Path(tmp) / "d.sock"
        with socket.socket(socket.AF_UNIX) as server:
            server.bind(str(path))
            os.chmod(path, 0o600)
            assert socket_file_ok(path)
            os.chmod(path, 0o660)
            assert not socket_file_ok(path), "others could open it"
        plain = Path(tmp) / "plain"
        plain.write_text("")
        os.chmod(plain, 0o600)
        assert not socket_file_ok(plain), "not a socket"
        assert not socket_file_ok(Path(tmp) / "missing.sock")
