"""The JSON report: 0-based LSP positions; other tools read these names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .. import __version__
from ..findings import FileResult
from .paths import display_path


def report_object(results: list[FileResult], versions: dict[str, str], cwd: Path) -> dict[str, Any]:
    files = []
    for result in results:
        entry = result.to_json()
        entry["path"] = display_path(result.path, cwd)
        for diagnostic in entry["diagnostics"]:
            diagnostic["path"] = display_path(diagnostic["path"], cwd)
            for rel in diagnostic["related"]:
                rel["path"] = display_path(rel["path"], cwd)
        files.append(entry)
    return {
        "exportlens": __version__,
        "torch": versions.get("torch", ""),
        "python": versions.get("python", ""),
        "files": files,
    }


def render_json(results: list[FileResult], versions: dict[str, str], cwd: Path) -> str:
    return json.dumps(report_object(results, versions, cwd), indent=2, ensure_ascii=False) + "\n"
