"""What the server knows between messages, and the snapshots its handlers read.

The `Session` owns the open documents (documents.py), each file's state (state.py: its modules'
results, what runs), the settings, trust and the workspace folders; it changes only on the
server's own messages and the scheduler's results. A handler takes a `Snapshot` of one document
and answers from it alone: the document (one version, one parse), the settings, the result keys
(computed once per document and settings), the results and what runs at that moment. A snapshot
never changes: a handler that awaits keeps answering about the version it started with.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..check.jobs import CheckOptions
from ..check.keys import document_keys, subject_at
from ..check.plan import Placement
from ..check.routes import Route, route_of
from ..check.sites import SiteIndex
from ..config.files import excluded, inside_library, own_library
from ..config.project import Project, project_of
from ..config.settings import Settings
from ..discovery import Subject, discovery_of
from ..document import Document
from ..findings import Finding
from .documents import Documents, NotebookCells, buffer_path
from .state import FileState, ModuleEntry
from .trust import is_trusted


@dataclass(frozen=True)
class Snapshot:
    """One document as the session knew it when the snapshot was taken."""

    uri: str
    document: Document
    settings: Settings
    trusted: bool
    roots: tuple[str, ...]
    keys: Mapping[str, str]  # module -> the key of its results for this text and these settings
    results: Mapping[str, ModuleEntry]  # module -> its last finished check
    running: frozenset[str]
    cancelled: frozenset[str]  # modules whose export the user cancelled
    placement: Placement  # modules checked through another workspace file (check/plan.py)
    graph_views: frozenset[tuple[str, str]]
    project: Project  # its pyproject.toml's [tool.exportlens] (config/project.py)
    skipped: str | None  # why the file is not checked (not the user's code, excluded, disabled)
    static: tuple[Finding, ...] = ()  # its findings of no module: a syntax error, the untrusted notice

    @property
    def path(self) -> str:
        return self.document.path

    def options(self) -> CheckOptions:
        """How this document's modules are checked under these settings."""
        return CheckOptions(
            mode=self.settings.mode,
            roots=list(self.roots),
            all_failures=self.settings.all_failures,
            meta_above_mb=self.settings.meta_above_mb or None,
            device=self.settings.device,
            compile=self.settings.compile,
            quantize=self.settings.quantize,
            graph_views=self.graph_views,
            lowerings=self.settings.targets,
            timeout=self.settings.timeout_seconds,
            memory_mb=self.settings.memory_limit_mb or 0,  # unset: no cap, whatever another folder says
        )

    def subject(self, name: str) -> Subject | None:
        return next((t for t in discovery_of(self.document).subjects if t.name == name), None)

    def subject_at(self, line: int) -> Subject | None:
        """The module whose class spans 0-based `line`."""
        return subject_at(discovery_of(self.document), line)

    def stale(self, name: str) -> bool:
        """The module's result is of another text or other settings (it is being re-checked)."""
        entry = self.results.get(name)
        return entry is not None and entry.key != self.keys.get(name)

    def view(self, subject: Subject) -> ModuleView:
        """One module as every editor feature sees it: how it is exported and its state."""
        name = subject.name
        return ModuleView(
            subject,
            route_of(self.document, self.placement, name),
            self.results.get(name),
            running=name in self.running,
            cancelled=name in self.cancelled,
            stale=self.stale(name),
        )


@dataclass(frozen=True)
class ModuleView:
    """A module of a snapshot: its route (check/routes.py: its own file's call, or the script that
    exports it, or the parent file whose export records it) and its state."""

    subject: Subject
    route: Route
    entry: ModuleEntry | None  # its last finished check
    running: bool
    cancelled: bool  # the user cancelled its export
    stale: bool  # its result is of another text or other settings: being re-checked

    @property
    def cached(self) -> bool:
        """Restored from the results store, shown marked until re-checked."""
        return self.entry is not None and self.entry.cached

    @property
    def checked_alone(self) -> bool:
        """It has results of its own (not only "skipped": a part checked on the inputs it gets)."""
        return self.entry is not None and any(r.status != "skipped" for r in self.entry.results)


class Session:
    def __init__(
        self,
        text_document: Callable[[str], Any],
        folders: Callable[[], list[str]],
        notebook: NotebookCells | None = None,
    ) -> None:
        self.settings = Settings()  # the client's (defaults where it sent none)
        # The fields the user set in the editor, which beat pyproject.toml (client_settings.py).
        self.explicit: frozenset[str] = frozenset()
        # Each workspace folder's own settings and what the user set there (multi-root), by folder.
        self.folder_settings: dict[str, tuple[Settings, frozenset[str]]] = {}
        # The interpreters' library folders (prefix, stdlib, site-packages, torch): not the user's code.
        self.library: tuple[str, ...] = own_library()  # and the worker's, once the probe answers
        self.init_trusted = True
        self.documents = Documents(text_document, notebook)
        self.files: dict[str, FileState] = {}
        # uri -> the cursor's line (cursor.py): may come before the buffer's didOpen, kept until close
        self.cursors: dict[str, int] = {}
        self.site_index = SiteIndex()  # the workspace's export calls, re-read as files change
        # The module the graph panel last asked for (path, module): its checks build the view.
        self.graph_views: frozenset[tuple[str, str]] = frozenset()
        self._folders = folders
        self._keys: dict[str, tuple[Document, tuple[Any, ...], dict[str, str]]] = {}  # uri -> last keys
        # What the editor was last sent (publishing.py): a notebook's cells with diagnostics, by
        # notebook URI; each pyproject.toml's errors, by path.
        self.published_cells: dict[str, set[str]] = {}
        self.config_said: dict[str, list[Finding]] = {}
        # (uri, module) -> its running Compile with AOTInductor (lowering_commands.py's Cancel)
        self.compiling: dict[tuple[str, str], asyncio.Task[Any]] = {}

    @property
    def trusted(self) -> bool:
        return is_trusted(self.init_trusted, self.settings.trusted)

    def roots(self) -> list[str]:
        """The workspace folders, resolved (the server's folder when the client names none)."""
        return [str(Path(f).resolve()) for f in self._folders() if f] or [os.getcwd()]

    def file(self, uri: str) -> FileState:
        if uri not in self.files:
            self.files[uri] = FileState(uri, buffer_path(uri))
        return self.files[uri]

    def document(self, uri: str) -> Document:
        """The buffer's current document (documents.py)."""
        return self.documents.get(uri)

    def doc_version(self, uri: str) -> int:
        return self.documents.version(uri)

    def is_current(self, doc: Document) -> bool:
        """`doc` is the buffer as it is now, and the buffer is still open."""
        uri = str(doc.uri)
        return uri in self.files and self.doc_version(uri) == doc.version

    def settings_for(self, path: str) -> tuple[Settings, Project]:
        """A file's settings: defaults < its pyproject.toml's [tool.exportlens] < the editor
        settings the user set (config/project.py)."""
        project = project_of(path)
        folders = [f for f in self.folder_settings if path == f or path.startswith(f.rstrip(os.sep) + os.sep)]
        base, explicit = (
            self.folder_settings[max(folders, key=len)] if folders else (self.settings, self.explicit)
        )
        return project.settings(base, explicit), project

    def file_settings(self, uri: str) -> Settings:
        """The settings of the buffer `uri`: its folder's, its pyproject.toml's (multi-root)."""
        return self.settings_for(self.document(uri).path)[0]

    def skipped(self, path: str, uri: str, settings: Settings, project: Project) -> str | None:
        """Why a file is not checked, or None: it is the user's code and checks are on."""
        if not settings.enable:
            return "exportlens.enable is false"
        if uri.startswith("file:"):
            roots = self.roots()
            library = inside_library(path, [f for f in self.library if not _holds_a_root(f, roots)])
            if library is not None:
                return f"it is library code, inside {library}"
            base = (
                project.folder
                if project.path
                else next((r for r in roots if path.startswith(r + os.sep)), None)
            )
            pattern = excluded(path, settings.exclude, base)
            if pattern is not None:
                return f"it matches exclude {pattern!r}"
        return None

    def keys(self, doc: Document, settings: Settings | None = None) -> dict[str, str]:
        """Per module of `doc`, the key of its results under the current settings (check/keys.py):
        computed once per document and settings."""
        salt = (settings or self.settings_for(doc.path)[0]).results_key()
        known = self._keys.get(str(doc.uri))
        if known is not None and known[0] is doc and known[1] == salt:
            return known[2]
        keys = document_keys(doc, salt)
        self._keys[str(doc.uri)] = (doc, salt, keys)
        return keys

    def snapshot(self, uri: str) -> Snapshot:
        """The document `uri` now, with its file's results (the file is tracked from now on)."""
        state, doc = self.file(uri), self.document(uri)
        settings, project = self.settings_for(doc.path)
        return Snapshot(
            uri=uri,
            document=doc,
            settings=settings,
            trusted=self.trusted,
            roots=tuple(self.roots()),
            keys=MappingProxyType(self.keys(doc, settings)),
            results=MappingProxyType(dict(state.entries)),
            running=frozenset(state.running),
            cancelled=frozenset(state.cancelled),
            placement=state.placement,
            graph_views=self.graph_views,
            project=project,
            skipped=self.skipped(doc.path, uri, settings, project),
            static=tuple(state.static),
        )

    def refreshed(self, snap: Snapshot) -> Snapshot:
        """The snapshot's document, settings and keys with its file's results, findings and what
        runs as they are now (a check publishes the version it checked, with what it found)."""
        state = self.files.get(snap.uri)
        if state is None:  # closed since: nothing will be published for it
            return snap
        return dataclasses.replace(
            snap,
            results=MappingProxyType(dict(state.entries)),
            running=frozenset(state.running),
            cancelled=frozenset(state.cancelled),
            placement=state.placement,
            static=tuple(state.static),
        )

    def close(self, uri: str) -> FileState | None:
        """The buffer closed: nothing is kept for it."""
        self.documents.forget(uri)
        self._keys.pop(uri, None)
        self.cursors.pop(uri, None)
        return self.files.pop(uri, None)


def _holds_a_root(folder: str, roots: list[str]) -> bool:
    """A library folder that holds a workspace folder (a project inside /usr, or a workspace opened
    on a prefix) would exclude the user's own code: it is not taken as one."""
    return any(r == folder or r.startswith(folder.rstrip(os.sep) + os.sep) for r in roots)
