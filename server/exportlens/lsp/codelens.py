"""Code lenses above each module: its status, `Export` and `Show graph`.

Status (module_status.py, the hover's first line too): `✓ exports · 14 ops · 0.12 s` (then
`· ✗ ONNX: 1 issue` when a target refuses it), `✗ 2 export issues`, `⧗ exporting…` (then
`· so far: ✗ 1 export issue` once its first refusal is known), `no example inputs`, `export
cancelled`, `not exported (untrusted workspace)` (or `(exports need Linux, WSL or macOS)`:
native Windows).
"""

from __future__ import annotations

from lsprotocol import types

from ..check.static_findings import anchor_range
from ..discovery import discovery_of
from . import notebooks
from .app import ExportLensServer
from .diagnostics import lsp_range
from .module_status import module_status
from .session import Snapshot
from .summary_text import SHOW_GRAPH

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
    for subject in discovery_of(doc).subjects:
        if subject.class_name is None and subject.function is None:
            continue  # an export call of an imported class: its lens is in that class's file
        where = lsp_range(anchor_range(doc.source_text, subject))
        status = module_status(snap, subject)
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
