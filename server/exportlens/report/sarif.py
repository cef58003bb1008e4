"""SARIF 2.1.0 for code-scanning upload: one rule per code, 1-based regions."""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .. import __version__
from ..codes import registered, sections
from ..findings import FileResult, Finding, Range
from ..notebook.located import in_cell

LEVELS = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}
SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "SRCROOT"


def _homepage() -> str | None:
    """The package's Homepage from `[project.urls]` (its one declaration), if installed with one."""
    try:
        urls = metadata.metadata("exportlens").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return None
    found = [url.split(",", 1)[1].strip() for url in urls if url.lower().startswith("homepage,")]
    return found[0] if found else None


def _region(rng: Range) -> dict[str, int]:
    # SARIF columns count UTF-16 code units by default, as LSP does.
    return {
        "startLine": rng.start.line + 1,
        "startColumn": rng.start.character + 1,
        "endLine": rng.end.line + 1,
        "endColumn": rng.end.character + 1,
    }


def _artifact(path: str, cwd: Path) -> dict[str, str]:
    """Inside the working folder: a URI relative to `SRCROOT` (the run's `originalUriBaseIds`, as
    code scanning resolves it); outside: the file's absolute URI."""
    resolved = Path(path).resolve()
    try:
        relative = resolved.relative_to(cwd.resolve()).as_posix()
    except ValueError:
        return {"uri": resolved.as_uri()}
    return {"uri": quote(relative), "uriBaseId": SRCROOT}


def _location(path: str, rng: Range, cwd: Path, message: str | None = None) -> dict[str, Any]:
    # In a notebook: the region is in its cell, the cell (1-based) a property of the location.
    cell = in_cell(path, rng)
    location: dict[str, Any] = {
        "physicalLocation": {
            "artifactLocation": _artifact(path, cwd),
            "region": _region(cell[1] if cell else rng),
        }
    }
    if cell is not None:
        location["properties"] = {"cell": cell[0]}
    if message:
        location["message"] = {"text": message}
    return location


def _result(d: Finding, cwd: Path) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": d.code,
        "level": LEVELS[d.severity],
        "message": {"text": d.message},
        "locations": [_location(d.path, d.range, cwd)],
        "properties": {"module": d.module, "mode": d.mode},
    }
    if d.related:
        result["relatedLocations"] = [
            dict(_location(r.path, r.range, cwd, r.message), id=i) for i, r in enumerate(d.related)
        ]
    return result


def _rule(code: str) -> dict[str, Any]:
    """A code's rule: its one line, and its section of docs/codes.md as the help code scanning
    shows beside each alert."""
    rule: dict[str, Any] = {
        "id": code,
        "shortDescription": {"text": code.replace("-", " ")},
        "fullDescription": {"text": registered(code).why},
    }
    markdown = sections.markdown(code)
    if markdown is not None:
        rule["help"] = {"text": sections.plain(code), "markdown": markdown}
    return rule


def render_sarif(results: list[FileResult], versions: dict[str, str], cwd: Path) -> str:
    findings = [d for r in results for d in r.diagnostics]
    rules: dict[str, dict[str, Any]] = {}
    for d in findings:
        rule = rules.setdefault(d.code, _rule(d.code))
        if d.url:
            rule["helpUri"] = d.url
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "ExportLens",
                        "version": __version__,
                        # optional in SARIF: said only once the project has a public address
                        **({"informationUri": home} if (home := _homepage()) else {}),
                        "rules": list(rules.values()),
                    }
                },
                "invocations": [
                    {
                        "executionSuccessful": True,
                        "properties": {"torch": versions.get("torch"), "python": versions.get("python")},
                    }
                ],
                "originalUriBaseIds": {SRCROOT: {"uri": cwd.resolve().as_uri() + "/"}},
                "columnKind": "utf16CodeUnits",
                "results": [_result(d, cwd) for d in findings],
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
