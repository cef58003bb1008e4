"""The server object: what pygls dispatches to. It holds the session (session.py: documents, file
states, settings, trust), the scheduler (scheduler.py: where and when work runs) and what talks
to the client: publishing, notifications, lens refreshes, the steps that follow a publish."""

from __future__ import annotations

import asyncio
import logging
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import FeatureRequestError
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .. import __version__, early_worker
from ..config.settings import Settings
from .client_settings import merge, user_set
from .documents import NOTEBOOK_SYNC, notebook_cells
from .kept import KeptResults
from .progress import ExportProgress
from .protocol import ExportLensProtocol
from .publishing import Publisher
from .scheduler import CHECKED, Scheduler
from .session import Session

if TYPE_CHECKING:
    from pygls.server import ServerErrors

SETTINGS_WAIT = 10.0  # seconds a check waits for the client's first settings, then goes on
log = logging.getLogger("exportlens.lsp")
SECTION = "exportlens"


class ExportLensServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "exportlens", __version__, protocol_cls=ExportLensProtocol, notebook_document_sync=NOTEBOOK_SYNC
        )
        self._reporting = False
        self.session = Session(
            lambda uri: self.workspace.get_text_document(uri),
            self._folders,
            lambda uri: notebook_cells(self.workspace, uri),
        )
        # Every diagnostics send (publishing.py); its steps after a publish: code_actions.py's fixes.
        self.publisher = Publisher(self, self.session)
        # From the client's shutdown on, the server asks the client nothing (pygls refuses and logs it).
        self.shutting_down = False
        # Set once the client's settings were asked for (or cannot be): a check waits for it, so
        # a folder's settings (`enable`, `exclude`, ...) hold from the first check on.
        self.settings_known = asyncio.Event()
        self.after_close: list[Callable[[str], None]] = []
        self.results = KeptResults()
        self.scheduler = Scheduler(self)

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
    def settings(self) -> Settings:
        return self.session.settings

    @property
    def trusted(self) -> bool:
        return self.session.trusted

    def read_init_options(self, options: Any) -> None:
        if isinstance(options, dict):
            if options.get("trusted") is False:
                self.session.init_trusted = False
            if isinstance(options.get("cacheDir"), str) and options["cacheDir"]:
                self.results.folder = Path(options["cacheDir"])
            self.session.settings = self.take_settings(options.get("settings"))
        if not self.trusted:
            early_worker.discard()  # from `serve --start-worker`: no engine will adopt it

    async def pull_settings(self) -> None:
        try:
            await self._pull_settings()
        finally:
            self.settings_known.set()

    async def until_settings_known(self) -> None:
        """Until the client's first settings came (at most SETTINGS_WAIT s: then those known)."""
        if self.settings_known.is_set():
            return
        try:
            await asyncio.wait_for(self.settings_known.wait(), SETTINGS_WAIT)
        except TimeoutError:
            log.info("no settings from the client after %g s: checking with those known", SETTINGS_WAIT)

    async def _pull_settings(self) -> None:
        workspace = self.client_capabilities.workspace
        if not (workspace and workspace.configuration) or self.shutting_down:
            return
        try:
            folders = [f for f in self.workspace.folders.values() if to_fs_path(f.uri)]
        except RuntimeError:  # no workspace yet (pygls raises before initialize)
            folders = []
        items = [types.ConfigurationItem(section=SECTION)]
        items += [types.ConfigurationItem(section=SECTION, scope_uri=f.uri) for f in folders]
        try:
            raw, *per_folder = await self.workspace_configuration_async(
                types.ConfigurationParams(items=items)
            )
        except Exception as exc:  # noqa: BLE001 - a client that fails the request keeps the settings we have
            log.warning("workspace/configuration failed: %s", exc)
            return
        new = self.take_settings(raw)
        # Each workspace folder's own (multi-root): a file takes its folder's (session.py).
        before = _what_results_depend_on(self.session.folder_settings)
        self.session.folder_settings = {
            str(Path(to_fs_path(f.uri) or "").resolve()): (
                merge(new, answer),
                user_set(answer, self.session.explicit),
            )
            for f, answer in zip(folders, per_folder, strict=False)
            if isinstance(answer, dict)
        }
        await self.apply_settings(new)
        if before != _what_results_depend_on(self.session.folder_settings):
            for uri, state in self.session.files.items():
                state.entries.clear()
                self.scheduler.schedule(uri, force=True)

    def take_settings(self, raw: Any) -> Settings:
        """The client's settings merged, and which of them the user set (they beat pyproject.toml)."""
        self.session.explicit = user_set(raw, self.session.explicit)
        return merge(self.settings, raw)

    async def apply_settings(self, new: Settings) -> None:
        old, self.session.settings = self.session.settings, new
        # an interpreter no window or folder setting names any more: its worker goes
        in_use = {new.python} | {s.python for s, _ in self.session.folder_settings.values()}
        await self.scheduler.engines.settings_changed(new, in_use)
        if old == new:
            return
        log.info("settings: %s", new)
        if old.results_key() != new.results_key() or old.export_sites != new.export_sites:
            for uri, state in self.session.files.items():
                state.entries.clear()
                self.scheduler.schedule(uri, force=True)

    def _folders(self) -> list[str]:
        folders = [to_fs_path(f.uri) or "" for f in self.workspace.folders.values()]
        if not folders and self.workspace.root_path:
            folders = [self.workspace.root_path]
        return folders

    # -- the client ---------------------------------------------------------
    def clear(self, uri: str) -> None:
        """The document closed: no diagnostics, nothing kept for it."""
        self.publisher.clear(uri)
        for step in self.after_close:
            step(uri)

    def notify_checked(self, uri: str, version: int, cancelled: bool) -> None:
        self.protocol.notify(CHECKED, {"uri": uri, "version": version, "cancelled": cancelled})

    def export_progress(self, message: str, on_cancel: Callable[[], None]) -> ExportProgress:
        """A cancellable work-done progress around an export batch (shown after a delay)."""
        return ExportProgress(self, message, on_cancel)

    def refresh_lenses(self) -> None:
        if self.shutting_down:
            return
        workspace = self.client_capabilities.workspace
        lens = workspace.code_lens if workspace else None
        if lens and lens.refresh_support:
            self.workspace_code_lens_refresh(None)  # a callback would log a traceback per failed refresh

    async def shutdown_all(self) -> None:
        self.shutting_down = True
        await self.scheduler.shutdown()


def _what_results_depend_on(folders: dict[str, tuple[Settings, frozenset[str]]]) -> dict[str, Any]:
    return {f: (s.results_key(), s.export_sites) for f, (s, _) in folders.items()}


def _traceback(error: BaseException) -> str:
    """The traceback of `error`: its own, or the one pygls keeps in a JsonRpcException's data."""
    if error.__traceback__ is not None:
        return "\n" + "".join(traceback.format_exception(error)).rstrip()
    data = getattr(error, "data", None)
    frames = data.get("traceback") if isinstance(data, dict) else None
    if isinstance(frames, list) and frames:
        return "\nTraceback (most recent call last):\n" + "".join(map(str, frames)).rstrip()
    return ""
