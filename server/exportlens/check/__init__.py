"""One check of a document's modules, shared by the CLI and the language server.

`jobs.py` turns a discovered module into a worker job, `run.py` runs a document's jobs and
diagnoses their outcomes (the parts round: `parts.py`; findings without an export:
`static_findings.py`; the passes on findings: `guessed.py`, `merge.py`, `outcomes.py`).

`check_file` and `check_document` are imported when first asked for: they bring the diagnosis
stack, which the CLI imports only when a file needs an export (persist/files.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .jobs import MODES, CheckOptions, tracers

if TYPE_CHECKING:
    from .run import EarlyReport, check_document, check_file

__all__ = ["MODES", "CheckOptions", "EarlyReport", "check_document", "check_file", "tracers"]
_RUN = ("EarlyReport", "check_document", "check_file")


def __getattr__(name: str) -> Any:
    if name in _RUN:
        from . import run

        return getattr(run, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
