"""Failure record -> findings.  Minimal generic mapping; the taxonomy grows here."""

from __future__ import annotations

from typing import Any

from ..findings import Finding
from .context import DiagnosisContext


def diagnose(record: dict[str, Any], ctx: DiagnosisContext) -> list[Finding]:
    message = str(record.get("message", "")).strip().splitlines()
    first = message[0] if message else record.get("exc_type", "error")
    return [
        Finding(
            path=ctx.path,
            range=ctx.anchor,
            severity="error",
            code="export-error",
            message=f"{record.get('exc_type', 'Error')}: {first}",
            module=ctx.module,
            mode=ctx.mode,
        )
    ]
