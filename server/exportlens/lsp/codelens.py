"""Code lenses above each module: its status, `Export` and `Show graph`.

Status: `✓ exports · 14 ops · 0.12 s` (then `· ✗ ONNX: 1 issue` when a target refuses it),
`✗ 2 export issues`, `⧗ exporting…`, `no example inputs`, `export cancelled`,
`not exported (untrusted workspace)` (or `(exports need Linux, WSL or macOS)`: native Windows).
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from ..check.covered import holder
from ..check.static_findings import anchor_range
from ..discovery import Subject
from . import notebooks, trust
from .app import ExportLensServer
from .diagnostics import lsp_range
from .session import Snapshot
from .summary_text import SHOW_GRAPH, status_line

EXPORT = "exportlens.exportModule"


def register(server: ExportLensServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    def code_lens(ls: ExportLensServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        uri, _, _ = notebooks.joined(ls, params.text_document.uri, 0)
        if uri != params.text_document.uri:  # a notebook cell: the lenses on its lines
            return notebooks.cell_lenses(ls, params.text_document.uri, lenses(ls.session.snapshot(uri)))
        return lenses(ls.session.snapshot(uri))


def lenses(snap: Snapshot) -> list[types.CodeLens]:
    """Each module's lenses, from the snapshot's results only."""
    doc = snap.document
    found: list[types.CodeLens] = []
    if snap.skipped is not None:  # not the user's code, excluded or disabled
        return found
    for subject in doc.discovery.subjects:
        if subject.class_name is None and subject.function is None:
            continue  # an export call of an imported class: its lens is in that class's file
        where = lsp_range(anchor_range(doc.source_text, subject))
        status = _status(snap, subject, snap.keys.get(subject.name))
        found.append(types.CodeLens(range=where, command=types.Command(title=status, command="")))
        if snap.trusted:
            at = {"line": where.start.line, "character": where.start.character}
            export = types.Command(title="Export", command=EXPORT, arguments=[snap.uri, at])
            found.append(types.CodeLens(range=where, command=export))
        entry = snap.results.get(subject.name)
        if entry is not None and any(r.graph for r in entry.results):
            show = types.Command(title="Show graph", command=SHOW_GRAPH, arguments=[snap.uri, subject.name])
            found.append(types.CodeLens(range=where, command=show))
    return found


def _status(snap: Snapshot, subject: Subject, key: str | None) -> str:
    if not snap.trusted:
        return f"not exported ({trust.why_no_code()})"
    if subject.name in snap.running:
        return "⧗ exporting…"
    if subject.name in snap.cancelled:
        return "export cancelled"
    if subject.part_of is not None:
        parent = snap.results.get(subject.part_of)
        shown = f" · {status_line(parent)}" if parent is not None else ""
        own = snap.results.get(subject.name)  # its check alone, on the inputs it gets there
        if own is not None and any(r.status != "skipped" for r in own.results):
            shown += f" · alone: {status_line(own)}"
        return f"part of `{subject.part_of}`{shown}"
    entry = snap.results.get(subject.name)
    if entry is None or all(r.status == "skipped" for r in entry.results):
        results = {name: e.results for name, e in snap.results.items()}
        if (held := holder(subject, snap.path, results)) is not None:  # `build_model()` built it
            name, exported = held
            return f"{'exported as' if exported else 'part of'} `{name}` · {status_line(snap.results[name])}"
    parents = snap.placement.parents
    # checked as a part of what another file exports (check/elsewhere.py); a class that export
    # never calls is checked by its own file, as any class no export covers
    if subject.name in parents and (entry is None or any(r.inputs == "recorded" for r in entry.results)):
        where = f"part of a module of {Path(parents[subject.name]).name}"
        if entry is not None and any(r.status != "skipped" for r in entry.results):
            return f"{where} · alone: {status_line(entry)}"
        return where if entry is not None else "not exported yet"
    if entry is None:
        return (
            "no example inputs"
            if subject.inputs_kind == "none" and subject.name not in snap.placement.sites
            else "not exported yet"
        )
    status = status_line(entry)
    if entry.key != key:
        return status + " (stale)"
    return status + " (cached, re-checking)" if entry.cached else status
