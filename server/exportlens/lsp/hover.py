"""Hover, from the cache only (never waits for an export).

On a squiggled range: the finding's explanation, fix and links (finding_hover.py). On a module's
class name or its `def forward`: its status (module_status.py, the lens's line), then the export
summary. On a line inside `forward`: the ATen ops that line became. Marked stale when the module's
text changed since that export.
"""

from __future__ import annotations

import ast
from pathlib import Path

from lsprotocol import types

from ..check.covered import holder
from ..discovery import Subject
from . import notebooks
from .app import ExportLensServer
from .finding_hover import finding_text
from .module_status import module_status
from .session import Snapshot
from .state import ModuleEntry
from .summary_text import (
    SHOW_GRAPH,
    command_link,
    device_line,
    dynamic_dims,
    graph_excerpt,
    lowering_line,
    signature,
    status_line,
)

STALE = "*Stale: the source changed since this export; it is being re-checked.*"


def register(server: ExportLensServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: ExportLensServer, params: types.HoverParams) -> types.Hover | None:
        # A cell's position is its notebook's line (lsp/notebooks.py).
        uri, line, _ = notebooks.joined(ls, params.text_document.uri, params.position.line)
        if uri not in ls.session.files:
            return None
        snap = ls.session.snapshot(uri)
        said = [t for t in (finding_text(snap, line, params.position.character), hover_text(snap, line)) if t]
        if not said:
            return None
        text = "\n\n---\n\n".join(said)
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))


def hover_text(snap: Snapshot, line: int) -> str | None:
    """The hover on 0-based `line` of the snapshot's document, from its results only."""
    subject = snap.subject_at(line)
    if subject is None or not isinstance(subject.node, ast.ClassDef):
        return None
    entry = snap.results.get(subject.name)
    stale = snap.stale(subject.name)
    forward = _forward(subject.node)
    on_header = line == subject.node.lineno - 1 or (forward is not None and line == forward.lineno - 1)
    if on_header:
        return _module_text(snap, subject, entry, stale)
    if forward is not None and forward.lineno <= line < (forward.end_lineno or 0):
        # A part's lines are traced by its parent's export: that graph says what they became.
        traced = snap.results.get(subject.part_of) if subject.part_of else entry
        return _line_text(snap, traced, line, stale)
    return None


def _forward(cls: ast.ClassDef) -> ast.FunctionDef | None:
    return next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "forward"), None)


def _module_text(snap: Snapshot, subject: Subject, entry: ModuleEntry | None, stale: bool) -> str:
    """The status the lens shows too (module_status.py), then what checked it and its summary."""
    parts = [f"**ExportLens · `{subject.name}`** — {module_status(snap, subject)}"]
    if subject.part_of is not None:
        explained = f"Checked by exporting `{subject.part_of}`, with the inputs `{subject.name}` gets there."
        if entry is not None and any(r.status != "skipped" for r in entry.results):
            explained += " Alone, on inputs like those it gets there (shapes, dtypes, Dims): "
            explained += status_line(entry) + "."
            dims = [d for r in entry.results if r.graph for d in dynamic_dims(r.graph)]
            if dims:  # the parent's Dims it follows, derived ones (`seq + 1`) with their ranges
                explained += " Dynamic dims: " + ", ".join(dict.fromkeys(dims)) + "."
        return "\n\n".join([*parts, explained])
    if entry is None or all(r.status == "skipped" for r in entry.results):
        results = {name: e.results for name, e in snap.results.items()}
        if (held := holder(subject, snap.path, results)) is not None:  # `build_model()` built it
            return "\n\n".join([*parts, _covered_text(subject, *held)])
    if entry is None:
        if (site := snap.placement.sites.get(subject.name)) is not None:
            parts.append(f"Checked by the export call in `{Path(site).name}`.")
        return "\n\n".join(parts)
    if stale:
        parts.append(STALE)
    if entry.site and subject.name in snap.placement.parents:
        parts.append(f"Inputs as a module of `{entry.site}` gives them when its export runs (a part of it).")
    elif entry.site:
        parts.append(f"Inputs from the export call in `{entry.site}`.")
    for result in entry.results:
        graph = result.graph
        if not graph:
            continue
        lines = [f"**{result.mode}** · {graph.get('ops', 0)} ops · {result.seconds:.2f} s", *signature(graph)]
        if dims := dynamic_dims(graph):
            lines.append("Dynamic dims: " + ", ".join(dims))
        if device := device_line(graph):
            lines.append(device)
        lines += [lowering_line(t) for t in result.lowerings]
        excerpt, cut = graph_excerpt(str(graph.get("code", "")))
        lines.append(f"```python\n{excerpt}\n```")
        if cut or graph.get("code_truncated"):
            lines.append(command_link("Open the whole graph", SHOW_GRAPH, [snap.uri, subject.name]))
        parts.append("\n\n".join(lines))
    for finding in entry.findings[:3]:
        parts.append(f"- `{finding.code}` line {finding.range.start.line + 1}: {finding.message[:200]}")
    return "\n\n".join(parts)


def _covered_text(subject: Subject, name: str, exported: bool) -> str:
    """A class that the export of the file's module `name` covers: checked by that export only."""
    if exported:
        return f"Checked by that export, which builds `{subject.name}`; its findings are `{subject.name}`'s."
    return f"Checked by exporting `{name}`, which builds `{subject.name}` inside it, with the inputs it gets."


def _line_text(snap: Snapshot, entry: ModuleEntry | None, line: int, stale: bool) -> str | None:
    if entry is None:
        return None
    for result in entry.results:
        by_file = result.graph["lines"] if result.graph else {}
        ops = by_file.get(snap.path, {}).get(str(line + 1))
        if ops:
            listed = "\n".join(f"- `{op}`" for op in ops)
            text = (
                f"**ExportLens** · this line became {len(ops)} ATen op{'s' if len(ops) != 1 else ''} "
                f"({result.mode}):\n\n{listed}"
            )
            return f"{text}\n\n{STALE}" if stale else text
    return None
