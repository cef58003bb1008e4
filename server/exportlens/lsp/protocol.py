"""pygls's protocol, with late answers to requests nobody awaits any more ignored.

pygls 2.1.1 (pygls#621, fixed upstream, not released): when the task awaiting a server → client
request (a progress bar's `window/workDoneProgress/create`, `workspace/configuration`, ...) is
cancelled, its future is cancelled too, and the client's answer arriving afterwards made
`future.set_result` raise `InvalidStateError`, which pygls showed the user as an error toast.
"""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol.types import ResponseError
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import MsgId

log = logging.getLogger("exportlens.lsp")


class ExportLensProtocol(LanguageServerProtocol):
    def _handle_response(
        self, msg_id: MsgId, result: Any | None = None, error: ResponseError | None = None
    ) -> None:
        future = self._request_futures.get(msg_id)
        if future is not None and future.done():
            del self._request_futures[msg_id]
            state = "cancelled" if future.cancelled() else "done"
            log.debug("answer to request %s, %s before it came: ignored", msg_id, state)
            return
        super()._handle_response(msg_id, result, error)
