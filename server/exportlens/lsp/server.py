"""`exportlens serve`: build the server from its feature modules and run it on stdio (or TCP).

stdout carries the protocol only: logs go to stderr and to window/logMessage.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

from lsprotocol import types

from . import (
    code_actions,
    codelens,
    commands,
    cursor,
    graph_command,
    hover,
    lifecycle,
    lowering_commands,
    notebooks,
    project_watch,
)
from .app import ExportLensServer

LEVELS = {
    logging.ERROR: types.MessageType.Error,
    logging.WARNING: types.MessageType.Warning,
    logging.INFO: types.MessageType.Info,
}


class ClientLogHandler(logging.Handler):
    """Forward ExportLens's own log records to the client's output channel."""

    def __init__(self, server: ExportLensServer) -> None:
        super().__init__(logging.INFO)
        self.server = server

    def emit(self, record: logging.LogRecord) -> None:
        kind = next((t for level, t in LEVELS.items() if record.levelno >= level), types.MessageType.Log)
        try:
            self.server.window_log_message(types.LogMessageParams(type=kind, message=self.format(record)))
        except Exception:  # noqa: BLE001 - no connection yet / gone: stderr has it anyway
            self.handleError(record)


def build() -> ExportLensServer:
    server = ExportLensServer()
    for feature in (
        lifecycle,
        project_watch,
        notebooks,
        hover,
        codelens,
        commands,
        graph_command,
        lowering_commands,
        code_actions,
        cursor,
    ):
        feature.register(server)
    return server


def serve(args: argparse.Namespace) -> int:
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        stream=sys.stderr,
        # The level first: the extension files each line under it in its log channel (serverOutput.ts).
        format="%(levelname)s %(name)s: %(message)s",
        force=True,
    )
    if not args.verbose:
        logging.getLogger("pygls").setLevel(logging.WARNING)
    server = build()
    logging.getLogger("exportlens").addHandler(ClientLogHandler(server))
    if args.tcp:
        server.start_tcp(args.host, args.port)
        return 0
    server.start_io()
    # The client said `exit` (or went away) and every message was flushed as it was sent: the
    # interpreter's teardown of pygls, lsprotocol and cattrs would only keep us up ~0.3 s more.
    logging.shutdown()
    sys.stderr.flush()
    os._exit(0)
