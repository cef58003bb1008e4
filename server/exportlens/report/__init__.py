"""Reporters: the same results as compiler-style text, JSON or SARIF 2.1.0."""

from __future__ import annotations

from pathlib import Path

from ..findings import FileResult
from .json_report import render_json
from .sarif import render_sarif
from .text import render_text


def render(fmt: str, results: list[FileResult], versions: dict[str, str], cwd: Path) -> str:
    if fmt == "json":
        return render_json(results, versions, cwd)
    if fmt == "sarif":
        return render_sarif(results, versions, cwd)
    return render_text(results, cwd)
