"""After the first export failure, find the module's other independent failures.

Called in the child only when the plain export failed, so clean modules pay
nothing.  Returns extra failure records (same shape as `failure.describe_failure`).
"""

from __future__ import annotations

from typing import Any


def more_failures(exc: BaseException, attempt: Any, strict: bool, path: str) -> list[dict[str, Any]]:
    return []
