"""Work-done progress for exports that take a while, cancellable from the client.

Nothing is shown for checks that finish within DELAY: a progress bar that
flashes for every keystroke is noise.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

log = logging.getLogger("exportlens.lsp")
DELAY = 0.5


class ExportProgress:
    """`async with ExportProgress(server, title, on_cancel):` around an export batch."""

    def __init__(self, server: LanguageServer, message: str, on_cancel: Callable[[], None]) -> None:
        self.server = server
        self.message = message
        self.on_cancel = on_cancel
        self.token: str | None = None
        self._timer: asyncio.Task[None] | None = None

    async def __aenter__(self) -> ExportProgress:
        if _supported(self.server):
            self._timer = asyncio.create_task(self._show_later())
        return self

    async def __aexit__(self, *exc: Any) -> None:
        if self._timer is not None and not self._timer.done():
            self._timer.cancel()
        if self.token is not None:
            self.server.work_done_progress.end(self.token, types.WorkDoneProgressEnd())
            self.server.work_done_progress.tokens.pop(self.token, None)

    async def _show_later(self) -> None:
        await asyncio.sleep(DELAY)
        if getattr(self.server, "shutting_down", False):
            return  # no request to the client once it asked the server to shut down
        token = f"exportlens-{uuid.uuid4().hex[:12]}"
        try:
            await self.server.work_done_progress.create_async(token)
        except Exception as exc:  # noqa: BLE001 - the client refused: no progress, the export goes on
            log.debug("no progress bar: %s", exc)
            return
        self.token = token
        self.server.work_done_progress.begin(
            token, types.WorkDoneProgressBegin(title="ExportLens", message=self.message, cancellable=True)
        )
        future: Future[Any] | None = self.server.work_done_progress.tokens.get(token)
        if future is not None:
            loop = asyncio.get_running_loop()
            future.add_done_callback(lambda f: f.cancelled() and loop.call_soon_threadsafe(self.on_cancel))


def _supported(server: LanguageServer) -> bool:
    window = server.client_capabilities.window
    return bool(window and window.work_done_progress)
