"""Untrusted workspaces: run no user code, say so once per file.

The workspace is untrusted when the client sends `initializationOptions:
{"trusted": false}` (VS Code's workspace trust) or the setting
`exportlens.trusted` is false.  Then the engine is never started: only what
discovery finds by reading the file (syntax errors, modules without example
inputs) is reported, plus one information diagnostic at the top of the file.
"""

from __future__ import annotations

from ..check.static_findings import read_findings
from ..document import Document
from ..findings import Finding, Range

UNTRUSTED_CODE = "untrusted-workspace"
UNTRUSTED_MESSAGE = (
    "ExportLens runs no code in an untrusted workspace: exports (which import this file and run its "
    "modules) are off, only static checks are shown. Trust the workspace to see export results."
)


def is_trusted(init_trusted: bool, setting_trusted: bool) -> bool:
    return init_trusted and setting_trusted


def static_findings(doc: Document) -> list[Finding]:
    """What can be said without running anything: the same as a trusted check says without exporting."""
    notice = Finding(
        path=doc.path,
        range=Range.of(0, 0, 0, 0),
        severity="information",
        code=UNTRUSTED_CODE,
        message=UNTRUSTED_MESSAGE,
    )
    return [notice, *read_findings(doc)]
