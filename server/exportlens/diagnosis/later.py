"""Which later failures (from the search past the first one) the real export would surely hit.

The search retraces with the example's real values patched in at each failure. A later failure is
certain when it stands on its own: whatever fixes the first (`torch.cond` traces both branches, a
`torch._check` lets tracing go on), the export gets there. It is only possible when its guard reads
the same data-dependent value as the first (`u0` from the same `.item()` / `nonzero()`): the fix of
the first (a `torch._check`, a static size) may settle it too. Possible ones are information.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from ..codes import registered
from ..findings import Finding

CODE = "possible-later-failure"
_UNBACKED = re.compile(r"\bu\d+\b")


def soften_possible(first: dict[str, Any], findings: list[Finding]) -> list[Finding]:
    """`findings[0]` is the first failure's, the rest the search's (same order as `first["more"]`)."""
    if len(findings) < 2:
        return findings
    head = findings[0]
    symbols = set(_UNBACKED.findall(str(first.get("cond") or "")))
    kept = [head]
    for later, record in zip(findings[1:], first.get("more") or [], strict=False):
        # Only a guard on a data-dependent value can hang on the first's value; a shape constraint
        # or a missing kernel is hit whatever the fix.
        guard = record.get("draft_failure_type") == "DATA_DEPENDENT_ERROR"
        shared = symbols & set(_UNBACKED.findall(str(record.get("cond") or ""))) if guard else set()
        if later.severity != "error" or not shared:
            kept.append(later)
            continue
        entry = registered(CODE)
        message = (
            f"Possibly refused here too, once line {head.range.start.line + 1} is fixed: it reads the same "
            f"data-dependent value (`{sorted(shared)[0]}`), so whether the real export stops here depends on "
            f"the fix. What the search found: {later.message}"
        )
        kept.append(replace(later, code=CODE, severity=entry.severity, message=message, fix=None, url=None))
    return kept
