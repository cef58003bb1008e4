"""One check of a document's modules, shared by the CLI and the language server.

`plan.py` places each module (the document's own check, or another workspace file's: an export
site, a parent file) and says which modules an edit re-checks (by `keys.py`'s result keys);
`jobs.py` turns a module into a worker job; `run.py` runs a document's own jobs (the parts round:
`parts.py`; findings without an export: `static_findings.py`), `elsewhere.py` another file's for
it, `placed.py` both; `passes.py` turns outcomes into findings, its passes in order.

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
