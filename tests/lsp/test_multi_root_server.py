"""A multi-root workspace: each file is checked with its own folder's settings."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.config.sources import STAMPED

from .conftest import SERVER_DIR, Session, make_client, stop


async def test_each_folder_has_its_own_settings(tmp_path: Path) -> None:
    strict, plain = tmp_path / "strict", tmp_path / "plain"
    strict.mkdir()
    plain.mkdir()
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "exportlens", "serve"],
        client_factory=make_client,
        server_env=dict(os.environ, PYTHONPATH=SERVER_DIR),
    )
    client = await config.start()
    assert isinstance(client, LanguageClient)
    client.set_configuration({"debounceMs": 0}, section="exportlens")
    client.set_configuration(
        {"debounceMs": 0, "mode": "strict"}, section="exportlens", scope_uri=strict.as_uri()
    )
    client.set_configuration({"debounceMs": 0}, section="exportlens", scope_uri=plain.as_uri())
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=tmp_path.as_uri(),
            workspace_folders=[
                types.WorkspaceFolder(uri=strict.as_uri(), name="strict"),
                types.WorkspaceFolder(uri=plain.as_uri(), name="plain"),
            ],
        )
    )
    session = Session(client, tmp_path)
    try:
        await session.open("strict/stamped.py", STAMPED)
        uri = (strict / "stamped.py").resolve().as_uri()

        def strict_refusal() -> bool:  # (a didOpen racing the settings' pull is checked again)
            last = [p for p in session.record.published if p.uri == uri][-1]
            return "untraceable-call" in [d.code for d in last.diagnostics]

        await session.until(strict_refusal)
        found = await session.open("plain/stamped.py", STAMPED)
        assert "untraceable-call" not in [d.code for d in found], found
    finally:
        await stop(session)
