"""Finding → LSP Diagnostic: code, docs link, related places, data for quick fixes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types

from ..findings import Finding, Range

SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}


def lsp_range(r: Range) -> types.Range:
    return types.Range(
        start=types.Position(line=r.start.line, character=r.start.character),
        end=types.Position(line=r.end.line, character=r.end.character),
    )


STALE = "(stale: from the last version that parsed) "
CACHED = "(cached: re-checking) "


def to_diagnostic(
    finding: Finding, uris: dict[str, str] | None = None, stale: bool = False, cached: bool = False
) -> types.Diagnostic:
    """`uris`: path -> URI of open buffers that are no file (else the path's file: URI);
    `stale`: a result of an older text, kept while the file has a syntax error; `cached`: a
    result of an earlier session (persist/), shown until the check running now replaces it."""
    uris = uris or {}
    data: dict[str, Any] = {"fix": finding.fix, "module": finding.module, "mode": finding.mode}
    if stale:
        data["stale"] = True
    if cached:
        data["cached"] = True
    prefix = STALE if stale else CACHED if cached else ""
    return types.Diagnostic(
        range=lsp_range(finding.range),
        severity=SEVERITY[finding.severity],
        code=finding.code,
        code_description=types.CodeDescription(href=finding.url) if finding.url else None,
        source="exportlens",
        message=prefix + finding.message,
        related_information=[
            types.DiagnosticRelatedInformation(
                location=types.Location(
                    uri=uris.get(r.path) or Path(r.path).resolve().as_uri(), range=lsp_range(r.range)
                ),
                message=r.message,
            )
            for r in finding.related
        ]
        or None,
        data=data,
    )
