"""Reduce an exception from a job to a JSON failure record (in the child, with torch)."""

from __future__ import annotations

import traceback
from typing import Any

MESSAGE_LIMIT = 20_000


def describe_failure(exc: BaseException, stage: str, attempt: Any, strict: bool, path: str) -> dict[str, Any]:
    return {
        "stage": stage,
        "strict": strict,
        "exc_type": type(exc).__name__,
        "exc_mro": [c.__name__ for c in type(exc).__mro__],
        "message": str(exc)[:MESSAGE_LIMIT],
        "frames": _frames(traceback.extract_tb(exc.__traceback__)),
    }


def _frames(stack: traceback.StackSummary) -> list[dict[str, Any]]:
    return [
        {"path": f.filename, "line": f.lineno, "end_line": f.end_lineno,
         "col": f.colno, "end_col": f.end_colno, "name": f.name}
        for f in stack
    ]
