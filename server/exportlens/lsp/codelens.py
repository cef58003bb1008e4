"""Code lenses above each module: its status, `Export` and `Show graph`.

Status: `✓ exports · 14 ops · 0.12 s` (then `· ✗ ONNX: 1 issue` when a target refuses it),
`✗ 2 export issues`, `⧗ exporting…`, `no example inputs`, `export cancelled`,
`not exported (untrusted workspace)`.
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from ..covered import exporter
from ..discovery import Target
from ..static_findings import anchor_range
from .app import ExportLensServer
from .diagnostics import lsp_range
from .state import FileState
from .summary_text import SHOW_GRAPH, status_line

EXPORT = "exportlens.exportModule"


def register(server: ExportLensServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    def code_lens(ls: ExportLensServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        uri = params.text_document.uri
        state = ls.file(uri)
        doc = ls.document(uri)
        keys = doc.module_keys(ls.settings.results_key())
        lenses: list[types.CodeLens] = []
        for target in doc.discovery.targets:
            if target.class_name is None:
                continue  # an export call of an imported class: its lens is in that class's file
            where = lsp_range(anchor_range(doc.source_text, target))
            status = _status(ls, state, target, keys.get(target.name))
            lenses.append(types.CodeLens(range=where, command=types.Command(title=status, command="")))
            if ls.trusted:
                at = {"line": where.start.line, "character": where.start.character}
                lenses.append(
                    types.CodeLens(
                        range=where,
                        command=types.Command(title="Export", command=EXPORT, arguments=[uri, at]),
                    )
                )
            entry = state.entries.get(target.name)
            if entry is not None and any(r.graph for r in entry.results):
                lenses.append(
                    types.CodeLens(
                        range=where,
                        command=types.Command(
                            title="Show graph", command=SHOW_GRAPH, arguments=[uri, target.name]
                        ),
                    )
                )
        return lenses


def _status(ls: ExportLensServer, state: FileState, target: Target, key: str | None) -> str:
    if not ls.trusted:
        return "not exported (untrusted workspace)"
    if target.name in state.running:
        return "⧗ exporting…"
    if target.name in state.cancelled:
        return "export cancelled"
    if target.part_of is not None:
        parent = state.entries.get(target.part_of)
        shown = f" · {status_line(parent)}" if parent is not None else ""
        own = state.entries.get(target.name)  # its check alone, on the inputs it gets there
        if own is not None and any(r.status != "skipped" for r in own.results):
            shown += f" · alone: {status_line(own)}"
        return f"part of `{target.part_of}`{shown}"
    entry = state.entries.get(target.name)
    if entry is None or all(r.status == "skipped" for r in entry.results):
        results = {name: e.results for name, e in state.entries.items()}
        if (name := exporter(target, state.path, results)) is not None:  # `build_model()` built it
            return f"exported as `{name}` · {status_line(state.entries[name])}"
    if target.name in state.parents:  # checked as a part of what another file exports (elsewhere.py)
        where = f"part of a module of {Path(state.parents[target.name]).name}"
        if entry is not None and any(r.status != "skipped" for r in entry.results):
            return f"{where} · alone: {status_line(entry)}"
        return where if entry is not None else "not exported yet"
    if entry is None:
        return (
            "no example inputs"
            if target.inputs_kind == "none" and target.name not in state.sites
            else "not exported yet"
        )
    status = status_line(entry)
    if entry.key != key:
        return status + " (stale)"
    return status + " (cached, re-checking)" if entry.cached else status
