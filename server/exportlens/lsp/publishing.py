"""What a buffer shows: its file state's findings, published with the version they were computed
on, never for a text the buffer has moved on from.

A module's results count while their key is the key of the text and settings now (check/keys.py);
those of another key are shown only while the file does not parse (marked stale); those restored
from the store (persist/), marked cached until the check that runs replaces them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..check.suppression import as_configured
from ..findings import Finding, ModuleResult, Range
from ..textpos import utf16_len
from .session import Snapshot
from .state import FileState, ModuleEntry

if TYPE_CHECKING:
    from .app import ExportLensServer


class Publisher:
    def __init__(self, ls: ExportLensServer) -> None:
        self.ls = ls

    def publish(
        self, state: FileState, snap: Snapshot, keys: Mapping[str, str] | None = None, stale: bool = False
    ) -> None:
        """Publish for the snapshot's document: the results of `keys` (default: the snapshot's;
        none shown with `{}`); `stale`: also every cached module's findings, marked stale."""
        doc = snap.document
        if not self.ls.session.is_current(doc):
            return  # the buffer moved on (or closed): these results are for an older text
        keys = snap.keys if keys is None else keys
        findings = list(state.static)
        old: list[Finding] = []
        restored: list[Finding] = []
        for name, entry in state.entries.items():
            if keys.get(name) == entry.key:
                (restored if entry.cached else findings).extend(entry.findings)
            elif stale:
                old += [f for f in entry.findings if f.path == state.path]
        if old:
            old = [f for f in old if inside(f.range, doc.text)]
        if snap.skipped is not None:
            findings, old, restored = [], [], []
        else:  # what the user configured (ignore comments, `ignore`, `severity`)
            findings, old, restored = as_configured(doc, snap.settings, findings, old, restored)
        # A module's early first failure is often all it has: its final result changes nothing.
        seen = repr((doc.version, findings, old, restored))
        if seen == state.last_published:
            return
        state.last_published = seen
        self.ls.publish(snap, findings, stale=old, cached=restored)

    def record(self, snap: Snapshot, name: str, results: list[ModuleResult], findings: list[Finding]) -> None:
        """A command's result for one module of the snapshot's document: kept as a check's, shown."""
        if name not in snap.keys:
            return
        state = self.ls.session.file(snap.uri)
        state.entries[name] = ModuleEntry(snap.keys[name], results, findings, snap.document.version)
        self.publish(state, snap)


def inside(where: Range, source: str) -> bool:
    """`where` lies inside the document (a stale finding whose lines are gone is dropped)."""
    lines = re.split(r"\r\n|\r|\n", source)  # LSP's lines
    ends = [where.start, where.end]
    return all(0 <= p.line < len(lines) and 0 <= p.character <= utf16_len(lines[p.line]) for p in ends)
