"""Which later failures (from the search past the first one) the real export would surely hit.

The search retraces with the example's real values patched in at each failure. A later failure is
certain when it stands on its own; it is only possible when it hangs on an earlier one: its guard
reads the same data-dependent value (`u0` from the same `.item()` / `nonzero()`), which fixing the
earlier failure (a `torch._check`, a static size) may settle, or its line runs only because the
example's values took the branch the earlier failure is about. Possible ones are information.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import Any

from ..codes import registered
from ..findings import Finding

CODE = "possible-later-failure"
_UNBACKED = re.compile(r"\bu\d+\b")


def soften_possible(first: dict[str, Any], findings: list[Finding], source: str, path: str) -> list[Finding]:
    """`findings[0]` is the first failure's, the rest the search's (same order as `first["more"]`)."""
    if len(findings) < 2:
        return findings
    head = findings[0]
    symbols = set(_UNBACKED.findall(str(first.get("cond") or "")))
    branch = _branch_body(source, head.range.start.line) if head.path == path else None
    kept = [head]
    for later, record in zip(findings[1:], first.get("more") or [], strict=False):
        shared = symbols & set(_UNBACKED.findall(str(record.get("cond") or "")))
        inside = (
            branch is not None and later.path == path and branch[0] <= later.range.start.line <= branch[1]
        )
        if later.severity != "error" or not (shared or inside):
            kept.append(later)
            continue
        why = (
            f"it reads the same data-dependent value (`{sorted(shared)[0]}`)"
            if shared
            else "this line runs only because the example's values took that branch"
        )
        entry = registered(CODE)
        message = (
            f"Possibly refused here too, once line {head.range.start.line + 1} is fixed: {why}, so whether "
            f"the real export gets here depends on the fix. What the search found: {later.message}"
        )
        kept.append(replace(later, code=CODE, severity=entry.severity, message=message, fix=None, url=None))
    return kept


def _branch_body(source: str, line: int) -> tuple[int, int] | None:
    """0-based first and last line of the body of the `if`/`while` whose test is on `line`."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While)) and node.test.lineno - 1 == line and node.body:
            last = node.orelse[-1] if node.orelse else node.body[-1]
            return node.body[0].lineno - 1, (last.end_lineno or last.lineno) - 1
    return None
