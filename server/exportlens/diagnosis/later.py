"""Which later failures (from the search past the first one) the real export would surely hit.

The search retraces with the example's real values patched in at each failure. A later failure is
certain when it stands on its own: whatever fixes the first (`torch.cond` traces both branches, a
`torch._check` lets tracing go on), the export gets there. It is only possible when its guard reads
the same data-dependent value as the first (`u0` from the same `.item()` / `nonzero()`): the fix of
the first (a `torch._check`, a static size) may settle it too. Possible ones are information
(the rule is `rules.py`'s LATER).
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..codes import registered
from ..findings import Finding
from ..worker.wire.records import FailureRecord

CODE = "possible-later-failure"
_UNBACKED = re.compile(r"\bu\d+\b")


def shared_value(first: FailureRecord, record: FailureRecord) -> set[str]:
    """The data-dependent values (`u0`) a later failure's guard reads that the first's reads too.

    Only a guard on a data-dependent value can hang on the first's value; a shape constraint or a
    missing kernel is hit whatever the fix.
    """
    if record.get("draft_failure_type") != "DATA_DEPENDENT_ERROR":
        return set()
    symbols = set(_UNBACKED.findall(str(first.get("cond") or "")))
    return symbols & set(_UNBACKED.findall(str(record.get("cond") or "")))


def soften(head: Finding, later: Finding, shared: set[str]) -> Finding:
    """`later` as possibly hit once `head` is fixed: information, no fix, no link."""
    entry = registered(CODE)
    message = (
        f"Possibly refused here too, once line {head.range.start.line + 1} is fixed: it reads the same "
        f"data-dependent value (`{sorted(shared)[0]}`), so whether the real export stops here depends on "
        f"the fix. What the search found: {later.message}"
    )
    return replace(later, code=CODE, severity=entry.severity, message=message, fix=None, url=None)
