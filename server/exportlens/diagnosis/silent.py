"""Warnings for what torch.export accepts but bakes in wrongly (side effects, train mode, ...)."""

from __future__ import annotations

from typing import Any

from ..findings import Finding
from .context import DiagnosisContext


def silent_findings(summary: dict[str, Any], ctx: DiagnosisContext) -> list[Finding]:
    """Static analysis of the module's source, confirmed by what the export did (`summary`)."""
    return []
