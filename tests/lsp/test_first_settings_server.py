"""A folder's settings hold from the first check on, through the real server and worker.

A client answers `workspace/configuration` when it can: VS Code gives its settings at
`initialize`, but each workspace folder's own (multi-root) only through that request. A file
opened before the answer was checked with the settings known then: with the folder's
`enable: false`, ExportLens ran the user's code it was told not to. A check now waits for the
first answer (lsp/app.py SETTINGS_WAIT).
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient

from ..procs import descendants
from .conftest import SERVER_DIR, initialize, make_client
from .models import GUARDED

ANSWER_AFTER = 2.0  # seconds the client takes to answer: a check would have started a worker by then


async def test_a_folders_enable_false_holds_before_its_settings_arrive(tmp_path: Path) -> None:
    client = make_client(own=frozenset({types.WORKSPACE_CONFIGURATION}))
    asked: list[float] = []

    @client.feature(types.WORKSPACE_CONFIGURATION)
    async def configuration(ls: LanguageClient, params: types.ConfigurationParams) -> list[Any]:
        asked.append(time.monotonic())
        if len(asked) == 1:
            await asyncio.sleep(ANSWER_AFTER)
        editor = {"daemon": False, "debounceMs": 0, "timeoutSeconds": 60}
        return [editor] + [{"enable": False} for _ in params.items[1:]]

    env = {**os.environ, "PYTHONPATH": SERVER_DIR}
    await client.start_io(sys.executable, "-m", "exportlens", "serve", env=env, cwd=str(tmp_path))
    try:
        session = await initialize(client, tmp_path.resolve(), {})
        proc = client._server
        assert proc is not None
        uri, text = session.write("guarded.py", GUARDED)
        session.versions[uri] = 1
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
            )
        )
        await session.until(lambda: bool(asked))
        started: list[tuple[int, str]] = []
        while time.monotonic() < asked[0] + ANSWER_AFTER - 0.2:  # the client has not answered yet
            started += descendants(proc.pid, spares=True)
            await asyncio.sleep(0.05)
        assert started == [], "a check started the worker before the folder's settings came"

        await session.wait_checked(uri, 1)
        shown = [d.message for p in session.record.published if p.uri == uri for d in p.diagnostics]
        assert shown == []
        assert descendants(proc.pid, spares=True) == [], "the folder is off: nothing of it runs"
    finally:
        await client.shutdown_session()
        await client.stop()
