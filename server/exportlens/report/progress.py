"""The CLI's findings as they come (text format): a module's first refusal on stderr as soon as torch
raised it, while the passes after it, the other tracer and the other modules go on. stdout keeps the
whole report, in order, at the end: what scripts and pre-commit read stays the same run after run."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from ..findings import Finding, ModuleResult
from .text import place

PREFIX = "exportlens: found, still checking: "


def progress_printer(
    configured: Callable[[list[Finding]], list[Finding]], cwd: Path, stream: TextIO | None = None
) -> Callable[[ModuleResult, list[Finding]], None]:
    """An `EarlyReport` printing each new finding's first line once; `configured` drops what the
    user's settings and comments ignore, as the report will."""
    said: set[tuple[str, int, str]] = set()

    def early(result: ModuleResult, findings: list[Finding]) -> None:
        out = stream or sys.stderr
        for finding in configured(findings):
            key = (finding.path, finding.range.start.line, finding.code)
            if key in said:
                continue
            said.add(key)
            first = (finding.message.splitlines() or [""])[0]
            where = place(finding.path, finding.range, cwd)
            out.write(f"{PREFIX}{where}: {finding.severity}[{finding.code}]: {first}\n")
        out.flush()

    return early
