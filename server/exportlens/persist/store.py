"""The results store: one JSON file per checked file, replaced atomically, under a cache folder.

Layout: `<folder>/v1/<sha256 of the file's path>.<editor|cli>.json` =
`{"path", "context", "modules": {name: {"key", "results": [...], "findings": [...]}}}`.
A file that cannot be read or decoded is a miss, never an error: the check just runs.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..findings import Finding, ModuleResult
from .codec import finding_from, result_from, result_to

log = logging.getLogger("exportlens.persist")
LAYOUT = "v1"


@dataclass
class Stored:
    """One module's results as a check left them."""

    key: str  # its module key (check/keys.py) when checked
    results: list[ModuleResult]
    findings: list[Finding]


def default_folder() -> Path:
    """$EXPORTLENS_CACHE_DIR, else the user's cache folder ($XDG_CACHE_HOME or ~/.cache)."""
    if folder := os.environ.get("EXPORTLENS_CACHE_DIR"):
        return Path(folder)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "exportlens"


class ResultStore:
    def __init__(self, folder: Path) -> None:
        self.folder = folder / LAYOUT

    def _file(self, path: str, kind: str) -> Path:
        name = hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest()
        return self.folder / f"{name}.{kind}.json"

    def load(self, path: str, context: str, kind: str = "editor") -> dict[str, Stored]:
        """The modules stored for `path` under `context` (none when it changed or is unknown).
        `kind`: the editor keeps results per module, the CLI per file (its own record)."""
        if not context:
            return {}
        try:
            raw = json.loads(self._file(path, kind).read_text(encoding="utf-8"))
            if raw.get("path") != path or raw.get("context") != context:
                return {}
            return {
                name: Stored(
                    entry["key"],
                    [result_from(r) for r in entry["results"]],
                    [finding_from(f) for f in entry["findings"]],
                )
                for name, entry in raw["modules"].items()
            }
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.info("stored results of %s unusable (%s): checking again", path, exc)
            return {}

    def save(self, path: str, context: str, modules: dict[str, Stored], kind: str = "editor") -> None:
        """Replace what is stored for `path` (an empty context stores nothing)."""
        if not context:
            return
        raw: dict[str, Any] = {
            "path": path,
            "context": context,
            "modules": {
                name: {
                    "key": s.key,
                    "results": [result_to(r) for r in s.results],
                    "findings": [f.to_json() for f in s.findings],
                }
                for name, s in modules.items()
            },
        }
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(raw, out, default=repr)
            os.replace(temporary, self._file(path, kind))
        except OSError as exc:  # a read-only or full disk costs the cache, not the check
            log.info("cannot store results of %s: %s", path, exc)
