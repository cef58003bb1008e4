"""A multi-root workspace: each file is checked with its own folder's settings, its interpreter too."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.config.sources import STAMPED

from .conftest import SERVER_DIR, Session, make_client, stop
from .models import GUARDED, MLP


async def multi_root(root: Path, folders: dict[str, dict[str, Any]]) -> Session:
    """A server on the workspace folders `root/<name>`, each with its own settings (in order)."""
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "exportlens", "serve"],
        client_factory=make_client,
        server_env=dict(os.environ, PYTHONPATH=SERVER_DIR),
    )
    client = await config.start()
    assert isinstance(client, LanguageClient)
    client.set_configuration({"debounceMs": 0, "daemon": False}, section="exportlens")  # conftest.initialize
    for name, settings in folders.items():
        (root / name).mkdir()
        scope = (root / name).as_uri()
        client.set_configuration({"debounceMs": 0, **settings}, section="exportlens", scope_uri=scope)
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=(root / n).as_uri(), name=n) for n in folders],
        )
    )
    return Session(client, root)


async def last_codes_once(session: Session, uri: str, wanted: str) -> None:
    """Until the file's last diagnostics hold `wanted` (a didOpen racing the settings' pull is
    checked again)."""

    def holds() -> bool:
        published = [p for p in session.record.published if p.uri == uri]
        return bool(published) and wanted in [d.code for d in published[-1].diagnostics]

    await session.until(holds)


async def test_each_folder_has_its_own_settings(tmp_path: Path) -> None:
    session = await multi_root(tmp_path, {"strict": {"mode": "strict"}, "plain": {}})
    try:
        await session.open("strict/stamped.py", STAMPED)
        await last_codes_once(
            session, (tmp_path / "strict" / "stamped.py").resolve().as_uri(), "untraceable-call"
        )
        found = await session.open("plain/stamped.py", STAMPED)
        assert "untraceable-call" not in [d.code for d in found], found
    finally:
        await stop(session)


async def test_each_folder_exports_with_its_own_interpreter(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-python")
    session = await multi_root(tmp_path, {"plain": {}, "elsewhere": {"python": missing}})
    try:
        uri = (tmp_path / "elsewhere" / "stamped.py").resolve().as_uri()
        await session.open("elsewhere/stamped.py", STAMPED)
        await last_codes_once(session, uri, "worker-unavailable")
        (unavailable,) = [p for p in session.record.published if p.uri == uri][-1].diagnostics
        assert missing in unavailable.message
        found = await session.open("plain/stamped.py", STAMPED)
        # the window's interpreter, with torch: Stamped exports (non-strict), time.time() baked in
        assert [d.code for d in found] == ["side-effect-baked"], found
    finally:
        await stop(session)


async def test_a_folders_run_on_save_holds_there_only(tmp_path: Path) -> None:
    """`runOn: save` in one folder: its edits wait for a save; the other folder's are checked."""
    session = await multi_root(tmp_path, {"saved": {"runOn": "save"}, "typed": {}})
    try:
        saved = (tmp_path / "saved" / "mlp.py").resolve().as_uri()
        typed = (tmp_path / "typed" / "mlp.py").resolve().as_uri()
        assert await session.open("saved/mlp.py", MLP) == []
        assert await session.open("typed/mlp.py", MLP) == []
        mark = len(session.record.checked)
        saved_version = session.change(saved, GUARDED)
        typed_version = session.change(typed, GUARDED)
        found = await session.wait_checked(typed, typed_version, mark)
        assert "data-dependent-branch" in [d.code for d in found], found
        await asyncio.sleep(2.0)  # the typed file's check came and went: the saved one's would have too
        assert not [c for c in session.record.checked[mark:] if c["uri"] == saved], "checked while typing"
        lenses = await session.lenses(saved)
        assert lenses[0].endswith("(stale)"), lenses
        assert saved_version == 2
    finally:
        await stop(session)
