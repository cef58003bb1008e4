"""Untrusted workspaces, and machines that cannot export: run no user code, say so once per file.

The workspace is untrusted when the client sends `initializationOptions:
{"trusted": false}` (VS Code's workspace trust) or the setting
`exportlens.trusted` is false; native Windows cannot run exports (platforms.py).  Then the
engine is never started: only what discovery finds by reading the file (syntax errors, modules
without example inputs) is reported, plus one information diagnostic at the top of the file
that says why.
"""

from __future__ import annotations

from ..check.static_findings import read_findings
from ..document import Document
from ..findings import Finding, Range
from ..platforms import EXPORTS_NEED, exports_unsupported

UNTRUSTED_CODE = "untrusted-workspace"
UNSUPPORTED_CODE = "exports-unsupported-platform"
UNTRUSTED_MESSAGE = (
    "ExportLens runs no code in an untrusted workspace: exports (which import this file and run its "
    "modules) are off, only static checks are shown. Trust the workspace to see export results."
)


def is_trusted(init_trusted: bool, setting_trusted: bool) -> bool:
    """Whether user code may run: the workspace is trusted and this machine runs exports."""
    return init_trusted and setting_trusted and exports_unsupported() is None


def why_no_code() -> str:
    """Why no code runs, in a few words (a code lens, a fix's title, a refused command)."""
    return "untrusted workspace" if exports_unsupported() is None else f"exports need {EXPORTS_NEED}"


def refused() -> PermissionError:
    """What a command that would run code raises when none may run."""
    return PermissionError(f"ExportLens runs no code ({why_no_code()})")


def static_findings(doc: Document) -> list[Finding]:
    """What can be said without running anything: the same as a trusted check says without exporting."""
    unsupported = exports_unsupported()
    notice = Finding(
        path=doc.path,
        range=Range.of(0, 0, 0, 0),
        severity="information",
        code=UNTRUSTED_CODE if unsupported is None else UNSUPPORTED_CODE,
        message=UNTRUSTED_MESSAGE if unsupported is None else f"ExportLens {unsupported}",
    )
    return [notice, *read_findings(doc)]
