"""pygls's protocol, with late answers ignored and what comes after `shutdown` answered quietly.

pygls 2.1.1 (pygls#621, fixed upstream, not released): when the task awaiting a server → client
request (a progress bar's `window/workDoneProgress/create`, `workspace/configuration`, ...) is
cancelled, its future is cancelled too, and the client's answer arriving afterwards made
`future.set_result` raise `InvalidStateError`, which pygls showed the user as an error toast.

After `shutdown`, pygls drops every message but `exit` with a warning, answers included. A
client stopping while requests are in flight sends their `$/cancelRequest` and answers to our
last requests after it, as LSP allows: that is not worth a warning in the user's output channel.
The spec's rule is followed instead: answers are still taken, a request gets InvalidRequest,
a notification is dropped.
"""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol.types import EXIT, ResponseError
from pygls.exceptions import JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import MsgId, RPCError, RPCMessage, RPCNotification, RPCRequest, RPCResponse

log = logging.getLogger("exportlens.lsp")


class ExportLensProtocol(LanguageServerProtocol):
    def handle_message(self, message: RPCMessage) -> None:
        if not self._shutdown or getattr(message, "method", "") == EXIT:
            super().handle_message(message)
        elif isinstance(message, RPCRequest):
            log.debug("request %s after shutdown: InvalidRequest", message.method)
            error = JsonRpcInvalidRequest("the server is shutting down").to_response_error()
            self._send_response(message.id, None, error)
        elif isinstance(message, RPCNotification):
            log.debug("notification %s after shutdown: dropped", message.method)
        elif isinstance(message, RPCResponse):  # an answer to a request of ours
            self._handle_response(message.id, message.result)
        elif isinstance(message, RPCError):
            self._handle_response(message.id, None, message.error)

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
