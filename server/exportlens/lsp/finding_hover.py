"""Hover on a squiggled range: the finding's explanation, its fix and its links, for every client
(a plain LSP client shows no diagnostic of its own on hover: Neovim's `K`).

From the snapshot only: the findings the buffer shows (publishing.py's `shown`), those whose
range holds the position, each once.
"""

from __future__ import annotations

from pathlib import Path

from ..codes import registered, url_for
from ..findings import Finding
from .publishing import shown
from .session import Snapshot


def finding_text(snap: Snapshot, line: int, character: int) -> str | None:
    current, _, cached = shown(snap, snap.keys, stale=False)
    here = [f for f in [*current, *cached] if f.path == snap.path and _holds(f, line, character)]
    if not here:
        return None
    return "\n\n---\n\n".join(dict.fromkeys(_one(f) for f in here))  # each once


def _holds(finding: Finding, line: int, character: int) -> bool:
    start, end = finding.range.start, finding.range.end
    after_start = (line, character) >= (start.line, start.character)
    before_end = (line, character) <= (end.line, end.character)
    return after_start and before_end


def _one(finding: Finding) -> str:
    code = registered(finding.code)
    parts = [f"**ExportLens** · `{finding.code}` ({finding.severity}): {finding.message}"]
    parts.append(f"*Why:* {code.why}. *Fix:* {code.fix}.")
    for related in finding.related:
        where = f"{Path(related.path).name}:{related.range.start.line + 1}"
        parts.append(f"- {where}: {related.message}")
    # The finding's own link first (its codeDescription, the CLI's link), then the others for it.
    section = url_for(finding.code)
    links = dict.fromkeys(u for u in (finding.url, section, code.url) if u)
    if links:
        parts.append(" · ".join(f"[{'this code' if u == section else 'torch'}]({u})" for u in links))
    return "\n\n".join(parts)
