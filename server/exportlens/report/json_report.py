"""The JSON report: 0-based LSP positions; other tools read these names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .. import __version__
from ..findings import FileResult, Range
from ..notebook.located import in_cell
from .coverage import coverage
from .paths import display_path


def report_object(results: list[FileResult], versions: dict[str, str], cwd: Path) -> dict[str, Any]:
    files = []
    for result in results:
        entry = result.to_json()
        entry["path"] = display_path(result.path, cwd)
        for diagnostic, finding in zip(entry["diagnostics"], result.diagnostics, strict=True):
            _cell_of(diagnostic, finding.path, finding.range)
            diagnostic["path"] = display_path(diagnostic["path"], cwd)
            for rel, related in zip(diagnostic["related"], finding.related, strict=True):
                _cell_of(rel, related.path, related.range)
                rel["path"] = display_path(rel["path"], cwd)
        files.append(entry)
    found = coverage(results, cwd)
    return {
        "exportlens": __version__,
        "torch": versions.get("torch", ""),
        "python": versions.get("python", ""),
        # the worker daemon the run used (docs/daemon.md), or null: a worker of its own, or none
        "daemon": (
            {"pid": int(versions["daemon_pid"]), "clients": int(versions["daemon_clients"])}
            if "daemon_pid" in versions
            else None
        ),
        "files": files,
        # every module found: checked (how) or not (why), report/coverage.py
        "coverage": {
            "checked": {"real": found.real, "recorded": found.recorded, "guessed": found.guessed},
            "not_checked": [{"module": label, "why": why} for label, why in found.unchecked],
        },
    }


def _cell_of(entry: dict[str, Any], path: str, where: Range) -> None:
    """In a notebook: `cell` (1-based, every cell counted) and the range in that cell."""
    cell = in_cell(path, where)
    if cell is not None:
        entry["cell"], entry["range"] = cell[0], cell[1].to_json()


def render_json(results: list[FileResult], versions: dict[str, str], cwd: Path) -> str:
    return json.dumps(report_object(results, versions, cwd), indent=2, ensure_ascii=False) + "\n"
