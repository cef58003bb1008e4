"""The server on native Windows (as tests/windows_standin.py stands in for it): it starts, runs no
code, and shows the static findings under one note that says exports need Linux, WSL or macOS."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest_asyncio
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.paths import ROOT

from .conftest import SERVER_DIR, Session, initialize, make_client, stop
from .models import NO_INPUTS

STANDIN = str(ROOT / "tests" / "windows_standin.py")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def windows(tmp_path_factory: Any) -> AsyncIterator[Session]:
    root = tmp_path_factory.mktemp("windows").resolve()
    config = ClientServerConfig(
        server_command=[sys.executable, STANDIN, "serve"],
        client_factory=make_client,
        server_env=dict(os.environ, PYTHONPATH=SERVER_DIR),
    )
    client = await config.start()
    assert isinstance(client, LanguageClient)
    session = await initialize(client, root, {"debounceMs": 0})
    yield session
    await stop(session)


async def test_no_code_runs_and_the_note_says_why(windows: Session, tmp_path: Path) -> None:
    canary = tmp_path / "ran.txt"
    source = f"""
        import pathlib

        import torch

        pathlib.Path({str(canary)!r}).write_text("user code ran")


        class Net(torch.nn.Module):
            def forward(self, x):
                return x * 2

            def example_inputs(self):
                return (torch.ones(2),)
    """
    diagnostics = await windows.open("net.py", source)
    assert [(d.code, d.severity) for d in diagnostics] == [
        ("exports-unsupported-platform", types.DiagnosticSeverity.Information)
    ]
    assert "exports need Linux, WSL or macOS" in diagnostics[0].message
    uri = (windows.root / "net.py").resolve().as_uri()
    assert await windows.lenses(uri) == ["not exported (exports need Linux, WSL or macOS)"]
    status = await windows.command("exportlens.status")
    assert status["workerPid"] is None and status["torchImported"] is False
    assert not canary.exists()


async def test_static_findings_still_come(windows: Session) -> None:
    diagnostics = await windows.open("pair.py", NO_INPUTS)
    assert [d.code for d in diagnostics] == ["exports-unsupported-platform", "no-example-inputs"]
