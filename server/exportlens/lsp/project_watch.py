"""pyproject.toml edited on disk: the open files it configures are checked again under their new
settings, without a reload.

The server asks the client to watch `**/pyproject.toml` (a dynamic `workspace/didChangeWatchedFiles`
registration, which VS Code's client and most others support; a client without it keeps each
file's settings until the file is opened or saved again). On a change it forgets the projects it
read (config/project.py caches them by modification time, which a quick same-size edit may not
move), recomputes each open file's settings, publishes the configuration errors of its project,
and checks again the files whose settings changed: those whose results depend on what changed
(mode, targets, device...) from scratch, the others (severity, ignore) only re-published.
"""

from __future__ import annotations

import logging
import os

from lsprotocol import types
from pygls.uris import to_fs_path

from ..config import project
from .app import ExportLensServer

log = logging.getLogger("exportlens.lsp")
WATCHED = f"**/{project.FILE}"
REGISTRATION = "exportlens-pyproject-watch"


def register(server: ExportLensServer) -> None:
    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: ExportLensServer, params: types.DidChangeWatchedFilesParams) -> None:
        changed = [to_fs_path(c.uri) for c in params.changes]
        changed_files = [p for p in changed if p and os.path.basename(p) == project.FILE]
        if changed_files:
            recheck_configured(ls, changed_files)


async def watch_projects(ls: ExportLensServer) -> None:
    """Ask the client to tell the server of changes to any pyproject.toml (after `initialized`)."""
    workspace = ls.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace else None
    if not (watched and watched.dynamic_registration):
        log.info("the client cannot watch pyproject.toml: an edit applies when a file is next opened")
        return
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern=WATCHED)]
    )
    registration = types.Registration(
        id=REGISTRATION, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=options
    )
    try:
        await ls.client_register_capability_async(types.RegistrationParams(registrations=[registration]))
    except Exception as exc:  # noqa: BLE001 - a client that refuses keeps working without it
        log.warning("could not watch pyproject.toml: %s", exc)


def recheck_configured(ls: ExportLensServer, changed: list[str]) -> None:
    """Each open file under its settings now: its project's errors, and a check if they changed.
    A changed pyproject.toml no open file is under has its errors said too (none once deleted)."""
    project.read.cache_clear()
    for path in changed:
        ls.publisher.config_errors(_project_at(path))
    for uri, state in list(ls.session.files.items()):
        settings, configured = ls.session.settings_for(ls.session.document(uri).path)
        ls.publisher.config_errors(configured)
        before = state.settings
        if before is None or before == settings:
            continue
        log.info("%s: its pyproject.toml changed its settings: checking it again", state.path)
        if before.results_key() != settings.results_key() or before.export_sites != settings.export_sites:
            state.entries.clear()
            ls.scheduler.schedule(uri, force=True)
        else:
            ls.scheduler.schedule(uri)


def _project_at(path: str) -> project.Project:
    """The `[tool.exportlens]` of the pyproject.toml at `path`: none (no errors) if it has no such
    table or is gone."""
    try:
        stat = os.stat(path)
    except OSError:
        return project.Project(path)
    return project.read(path, stat.st_mtime_ns, stat.st_size) or project.Project(path)
