"""The server object: settings, open files, the engine (created lazily, never when untrusted)."""

from __future__ import annotations

import asyncio
import logging
import os
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import FeatureRequestError
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .. import __version__, early_worker
from ..check import CheckOptions
from ..check.sites import SiteIndex
from ..config.settings import Settings
from ..document import Document
from ..engine import Engine, EngineOptions
from ..findings import Finding
from .client_settings import merge
from .diagnostics import to_diagnostic
from .documents import Documents, buffer_path
from .kept import KeptResults
from .protocol import ExportLensProtocol
from .scheduler import CHECKED, Scheduler
from .state import FileState
from .trust import is_trusted

if TYPE_CHECKING:
    from pygls.server import ServerErrors

log = logging.getLogger("exportlens.lsp")
SECTION = "exportlens"


class ExportLensServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("exportlens", __version__, protocol_cls=ExportLensProtocol)
        self._reporting = False
        self.settings = Settings()
        self.init_trusted = True
        self.files: dict[str, FileState] = {}
        self.documents = Documents(lambda uri: self.workspace.get_text_document(uri))
        # Steps that follow each publish (code_actions.py computes the fixes of what was published).
        self.after_publish: list[Callable[[Document, list[Finding]], None]] = []
        self.after_close: list[Callable[[str], None]] = []
        self.site_index = SiteIndex()
        self.results = KeptResults(self)
        self.scheduler = Scheduler(self)
        self._engine: Engine | None = None
        # The module the graph panel last asked for (path, module): its checks build the view.
        self.graph_views: frozenset[tuple[str, str]] = frozenset()

    def report_server_error(self, error: Exception, source: ServerErrors) -> None:
        """An error pygls caught (a notification handler's exception, a message it could not
        read or send): logged with its traceback, never shown as a message (pygls's default
        toast): the user can do nothing about these. (Failures they can act on, such as an
        interpreter without torch, are diagnostics that say what to do.)"""
        if source is FeatureRequestError:
            return  # the client has it in its answer; pygls logged the traceback (stderr)
        if self._reporting:  # the log goes to the client too: if sending failed, stderr only
            logging.getLogger("pygls").error("while reporting an error: %s", error)
            return
        self._reporting = True
        try:
            log.error("internal error (%s): %s%s", source.__name__, error, _traceback(error))
        finally:
            self._reporting = False

    # -- settings and trust -------------------------------------------------
    @property
    def trusted(self) -> bool:
        return is_trusted(self.init_trusted, self.settings.trusted)

    def read_init_options(self, options: Any) -> None:
        if isinstance(options, dict):
            if options.get("trusted") is False:
                self.init_trusted = False
            if isinstance(options.get("cacheDir"), str) and options["cacheDir"]:
                self.results.folder = Path(options["cacheDir"])
            self.settings = merge(self.settings, options.get("settings"))
        if not self.trusted:
            early_worker.discard()  # from `serve --start-worker`: no engine will adopt it

    async def pull_settings(self) -> None:
        workspace = self.client_capabilities.workspace
        if not (workspace and workspace.configuration):
            return
        try:
            (raw,) = await self.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
            )
        except Exception as exc:  # noqa: BLE001 - a client that fails the request keeps the settings we have
            log.warning("workspace/configuration failed: %s", exc)
            return
        await self.apply_settings(merge(self.settings, raw))

    async def apply_settings(self, new: Settings) -> None:
        old, self.settings = self.settings, new
        if old == new:
            return
        log.info("settings: %s", new)
        if self._engine is not None:
            self._engine.options.timeout = new.timeout_seconds
            self._engine.options.memory_mb = new.memory_limit_mb
            if old.python != new.python or not self.trusted:
                engine, self._engine = self._engine, None
                await engine.close()
        if old.results_key() != new.results_key() or old.export_sites != new.export_sites:
            for uri, state in self.files.items():
                state.entries.clear()
                self.scheduler.schedule(uri, force=True)

    # -- engine -------------------------------------------------------------
    def engine(self) -> Engine:
        if not self.trusted:
            raise RuntimeError("untrusted workspace: the engine must not run")
        if self._engine is None:
            self._engine = Engine(
                EngineOptions(
                    python=self.settings.python,
                    timeout=self.settings.timeout_seconds,
                    memory_mb=self.settings.memory_limit_mb,
                )
            )
        return self._engine

    @property
    def engine_started(self) -> Engine | None:
        return self._engine

    async def close_engine(self) -> None:
        if self._engine is not None:
            await self._engine.close()
            self._engine = None

    def check_options(self) -> CheckOptions:
        return CheckOptions(
            mode=self.settings.mode,
            roots=self.roots(),
            all_failures=self.settings.all_failures,
            meta_above_mb=self.settings.meta_above_mb or None,
            device=self.settings.device,
            graph_views=self.graph_views,
            targets=self.settings.targets,
        )

    def roots(self) -> list[str]:
        folders = [to_fs_path(f.uri) or "" for f in self.workspace.folders.values()]
        if not folders and self.workspace.root_path:
            folders = [self.workspace.root_path]
        return [str(Path(f).resolve()) for f in folders if f] or [os.getcwd()]

    # -- documents ----------------------------------------------------------
    def file(self, uri: str) -> FileState:
        if uri not in self.files:
            self.files[uri] = FileState(uri, buffer_path(uri))
        return self.files[uri]

    def document(self, uri: str) -> Document:
        """The buffer's current snapshot (lsp/documents.py)."""
        return self.documents.get(uri)

    def doc_version(self, uri: str) -> int:
        return self.documents.version(uri)

    def publish(
        self,
        doc: Document,
        findings: list[Finding],
        stale: list[Finding] | None = None,
        cached: list[Finding] | None = None,
    ) -> None:
        """Diagnostics of `doc`; `stale`: results of an older text, shown marked as such (the file
        does not parse now); `cached`: an earlier session's, until re-checked.  Then the steps
        that follow a publish (the fixes of these findings)."""
        uri = str(doc.uri)
        here = {doc.path: uri}
        diagnostics = (
            [to_diagnostic(f, here) for f in findings]
            + [to_diagnostic(f, here, stale=True) for f in stale or []]
            + [to_diagnostic(f, here, cached=True) for f in cached or []]
        )
        findings = findings + (cached or [])
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, version=doc.version, diagnostics=diagnostics)
        )
        for step in self.after_publish:
            try:
                step(doc, findings)
            except Exception:
                log.exception("after publishing %s", uri)

    def clear(self, uri: str) -> None:
        """The document closed: no diagnostics, nothing kept for it."""
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        self.documents.forget(uri)
        for step in self.after_close:
            step(uri)

    def notify_checked(self, uri: str, version: int, cancelled: bool) -> None:
        self.protocol.notify(CHECKED, {"uri": uri, "version": version, "cancelled": cancelled})

    def refresh_lenses(self) -> None:
        workspace = self.client_capabilities.workspace
        lens = workspace.code_lens if workspace else None
        if lens and lens.refresh_support:
            self.workspace_code_lens_refresh(None)  # a callback would log a traceback per failed refresh

    async def shutdown_all(self) -> None:
        checks = [s.task for s in self.files.values() if s.task is not None and not s.task.done()]
        for uri in list(self.files):
            self.scheduler.close(uri)
        if checks:  # each reaps what it started (an interpreter probe) as it is cancelled
            await asyncio.wait(checks, timeout=1.0)
        await self.close_engine()


def _traceback(error: BaseException) -> str:
    """The traceback of `error`: its own, or the one pygls keeps in a JsonRpcException's data."""
    if error.__traceback__ is not None:
        return "\n" + "".join(traceback.format_exception(error)).rstrip()
    data = getattr(error, "data", None)
    frames = data.get("traceback") if isinstance(data, dict) else None
    if isinstance(frames, list) and frames:
        return "\nTraceback (most recent call last):\n" + "".join(map(str, frames)).rstrip()
    return ""
