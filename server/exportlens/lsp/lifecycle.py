"""Document and workspace notifications → the scheduler; settings in, diagnostics cleared on close."""

from __future__ import annotations

import logging

from lsprotocol import types

from .app import ExportLensServer
from .buffer_events import closed, edited, opened
from .project_watch import watch_projects

log = logging.getLogger("exportlens.lsp")


def register(server: ExportLensServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: ExportLensServer, params: types.InitializeParams) -> None:
        ls.read_init_options(params.initialization_options)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: ExportLensServer, params: types.InitializedParams) -> None:
        await ls.pull_settings()
        await watch_projects(ls)
        log.info("ExportLens server ready (trusted: %s)", ls.trusted)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: ExportLensServer, params: types.DidChangeConfigurationParams
    ) -> None:
        pushed = params.settings.get("exportlens") if isinstance(params.settings, dict) else None
        workspace = ls.client_capabilities.workspace
        if isinstance(pushed, dict) and not (workspace and workspace.configuration):
            await ls.apply_settings(ls.take_settings(pushed))
        else:  # pulled: each workspace folder's settings too (multi-root)
            await ls.pull_settings()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: ExportLensServer, params: types.DidOpenTextDocumentParams) -> None:
        opened(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: ExportLensServer, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        state = ls.session.file(uri)
        for change in params.content_changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                # lines the edit replaced, and the lines of the text it inserted
                first = change.range.start.line
                state.changed_lines.update(range(first, first + change.text.count("\n") + 1))
        edited(ls, uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(ls: ExportLensServer, params: types.DidSaveTextDocumentParams) -> None:
        opened(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: ExportLensServer, params: types.DidCloseTextDocumentParams) -> None:
        closed(ls, params.text_document.uri)

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: ExportLensServer, params: None) -> None:
        await ls.shutdown_all()
