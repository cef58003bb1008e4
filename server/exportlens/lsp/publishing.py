"""Every diagnostics send of the server, through one narrow client interface: a buffer's findings
(a file's, or a notebook's, split into its cells), a `pyproject.toml`'s bad values, and the empty
list once a buffer closes; then the steps that follow a publish (code_actions.py's fixes).

What a buffer shows is a function of its snapshot (session.py): the findings of its modules'
results whose key is the key of the text and settings now (check/keys.py); those of another key
only while the file does not parse (marked stale); those restored from the store (persist/),
marked cached until the check that runs replaces them. Each is published with the version it
was computed on, never for a text the buffer has moved on from. What was last sent (per file,
per notebook's cells, per pyproject.toml) is the session's, not this object's.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Protocol

from lsprotocol import types

from ..check.suppression import as_configured
from ..config.project import Project
from ..findings import Finding, ModuleResult, Range
from ..textpos import utf16_len
from .cell_positions import by_cell
from .diagnostics import to_diagnostic
from .session import Session, Snapshot
from .state import ModuleEntry

log = logging.getLogger("exportlens.lsp")


class DiagnosticsClient(Protocol):
    """What of the client publishing needs: one notification."""

    def text_document_publish_diagnostics(self, params: types.PublishDiagnosticsParams) -> None: ...


class Publisher:
    def __init__(self, client: DiagnosticsClient, session: Session) -> None:
        self.client = client
        self.session = session
        # Steps that follow each publish (code_actions.py computes the fixes of what was published).
        self.after_publish: list[Callable[[Snapshot, list[Finding]], None]] = []

    def publish(self, snap: Snapshot, keys: Mapping[str, str] | None = None, stale: bool = False) -> None:
        """Publish for the snapshot's document: the results of `keys` (default: the snapshot's;
        none shown with `{}`); `stale`: also every cached module's findings, marked stale."""
        doc = snap.document
        if not self.session.is_current(doc):
            return  # the buffer moved on (or closed): these results are for an older text
        findings, old, restored = shown(snap, snap.keys if keys is None else keys, stale)
        # A module's early first failure is often all it has: its final result changes nothing.
        seen = repr((doc.version, findings, old, restored))
        state = self.session.file(snap.uri)
        if seen == state.last_published:
            return
        state.last_published = seen
        self._send(snap, findings, old, restored)

    def record(self, snap: Snapshot, name: str, results: list[ModuleResult], findings: list[Finding]) -> None:
        """A command's result for one module of the snapshot's document: kept as a check's, shown."""
        if name not in snap.keys:
            return
        state = self.session.file(snap.uri)
        state.entries[name] = ModuleEntry(snap.keys[name], results, findings, snap.document.version)
        self.publish(self.session.refreshed(snap))

    def config_errors(self, project: Project) -> None:
        """A pyproject.toml's bad `[tool.exportlens]` values: an error on each one's line (none
        once they are fixed)."""
        if project.path is None:
            return
        said = [e.finding() for e in project.errors]
        if self.session.config_said.get(project.path) == said:
            return
        self.session.config_said[project.path] = said
        uri = Path(project.path).as_uri()
        diagnostics = [to_diagnostic(f, {project.path: uri}) for f in said]
        self.client.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics)
        )

    def clear(self, uri: str) -> None:
        """The buffer closed: no diagnostics for it (a notebook's: for its cells)."""
        for cell in self.session.published_cells.pop(uri, set()):
            self._send_one(cell, [])
        self._send_one(uri, [])

    def _send(
        self, snap: Snapshot, findings: list[Finding], stale: list[Finding], cached: list[Finding]
    ) -> None:
        doc, uri = snap.document, snap.uri
        here = {doc.path: uri}
        diagnostics = (
            [to_diagnostic(f, here) for f in findings]
            + [to_diagnostic(f, here, stale=True) for f in stale]
            + [to_diagnostic(f, here, cached=True) for f in cached]
        )
        if doc.notebook is not None:  # each cell's, in its positions
            cells = by_cell(doc, diagnostics)
            # A cell removed since the last publish: its diagnostics go too (the client keeps them by URI).
            for gone in self.session.published_cells.get(uri, set()) - set(cells):
                self._send_one(gone, [])
            self.session.published_cells[uri] = set(cells)
            for cell_uri, found in cells.items():
                self._send_one(cell_uri, found)
        else:
            self._send_one(uri, diagnostics, doc.version)
        for step in self.after_publish:
            try:
                step(snap, findings + cached)
            except Exception:
                log.exception("after publishing %s", uri)

    def _send_one(self, uri: str, diagnostics: list[types.Diagnostic], version: int | None = None) -> None:
        params = types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=diagnostics)
        self.client.text_document_publish_diagnostics(params)


def shown(
    snap: Snapshot, keys: Mapping[str, str], stale: bool
) -> tuple[list[Finding], list[Finding], list[Finding]]:
    """(current, stale, cached) findings the snapshot's document shows, as the user configured
    them (ignore comments, `ignore`, `severity`)."""
    doc = snap.document
    findings = list(snap.static)
    old: list[Finding] = []
    restored: list[Finding] = []
    for name, entry in snap.results.items():
        if keys.get(name) == entry.key:
            (restored if entry.cached else findings).extend(entry.findings)
        elif stale:
            old += [f for f in entry.findings if f.path == snap.path]
    if old:
        old = [f for f in old if inside(f.range, doc.text)]
    if snap.skipped is not None:
        return [], [], []
    findings, old, restored = as_configured(doc, snap.settings, findings, old, restored)
    return findings, old, restored


def inside(where: Range, source: str) -> bool:
    """`where` lies inside the document (a stale finding whose lines are gone is dropped)."""
    lines = re.split(r"\r\n|\r|\n", source)  # LSP's lines
    ends = [where.start, where.end]
    return all(0 <= p.line < len(lines) and 0 <= p.character <= utf16_len(lines[p.line]) for p in ends)
