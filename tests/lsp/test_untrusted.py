"""Untrusted workspace: no user code runs at all; static findings and one notice per file."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest_asyncio
from lsprotocol import types

from .conftest import Session, start, stop
from .models import NO_INPUTS


def canary_module(canary: Path) -> str:
    return f"""
        import pathlib

        import torch

        pathlib.Path({str(canary)!r}).write_text("user code ran")


        class Canary(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(4, 4)

            def forward(self, x):
                return self.fc(x)
    """


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def untrusted(tmp_path_factory: Any) -> AsyncIterator[Session]:
    root = tmp_path_factory.mktemp("untrusted").resolve()
    session = await start(root, {}, init={"trusted": False, "settings": {"debounceMs": 0}})
    yield session
    await stop(session)


async def test_untrusted_runs_nothing(untrusted: Session, tmp_path: Path) -> None:
    canary = tmp_path / "canary.txt"
    diagnostics = await untrusted.open("net.py", canary_module(canary))
    assert [(d.code, d.severity) for d in diagnostics] == [
        ("untrusted-workspace", types.DiagnosticSeverity.Information)
    ]
    uri = (untrusted.root / "net.py").resolve().as_uri()
    version = untrusted.change(uri, canary_module(canary).replace("self.fc(x)", "self.fc(x) * 2"))
    assert [d.code for d in await untrusted.wait_checked(uri, version)] == ["untrusted-workspace"]
    assert (await untrusted.lenses(uri)) == ["not exported (untrusted workspace)"]
    status = await untrusted.command("exportlens.status")
    assert (
        status["trusted"] is False and status["workerPid"] is None and status["settings"]["debounceMs"] == 0
    )
    assert not canary.exists()


async def test_untrusted_still_reports_static_findings(untrusted: Session) -> None:
    diagnostics = await untrusted.open("pair.py", NO_INPUTS)
    assert [d.code for d in diagnostics] == ["untrusted-workspace", "no-example-inputs"]


async def test_the_canary_does_fire_in_a_trusted_workspace(server: Session, tmp_path: Path) -> None:
    canary = tmp_path / "canary.txt"
    assert await server.open("canary_net.py", canary_module(canary)) == []
    assert canary.read_text() == "user code ran"


async def test_trust_setting_off_then_on(server: Session, tmp_path: Path) -> None:
    canary = tmp_path / "canary2.txt"
    await server.set_settings(trusted=False)
    try:
        diagnostics = await server.open("canary_net2.py", canary_module(canary))
        assert [d.code for d in diagnostics] == ["untrusted-workspace"]
        assert not canary.exists()
        assert (await server.command("exportlens.status"))["workerPid"] is None
    finally:
        await server.set_settings(trusted=True)
    uri = (server.root / "canary_net2.py").resolve().as_uri()
    await server.until(
        lambda: server.client.diagnostics.get(uri) == [] or server.client.diagnostics.get(uri) == ()
    )
    assert canary.exists()
