"""`[tool.exportlens]` in `pyproject.toml`: the project's configuration, for the CLI and the server.

The nearest `pyproject.toml` above a file that has a `[tool.exportlens]` table is the file's
project (a monorepo's packages each have theirs). Its keys are the settings' `Spec.toml` names
(config/settings.py declares each once). Precedence, later wins: the declaration's defaults, the
project's values, what the user set explicitly (CLI flags; the editor settings the user set,
which the client names). A bad value is a `ConfigError` on its line, never ignored silently.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..codes import url_for
from ..findings import Finding, Range
from ..spelling import did_you_mean
from .settings import SPECS, Settings, stored

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the pinned backport (pyproject.toml's dependencies)
    import tomli as tomllib

BY_TOML = {spec.toml: spec for spec in SPECS if spec.toml}
# A key written as the editor's setting (`timeoutSeconds`) or the field (`timeout_seconds`): the
# pyproject.toml key it means, for "did you mean".
_SPELLINGS = {
    **{word: spec.toml for spec in BY_TOML.values() for word in (spec.name, spec.field) if spec.toml},
    **{key: key for key in BY_TOML},
}
FILE = "pyproject.toml"


@dataclass(frozen=True)
class ConfigError:
    path: str  # the pyproject.toml
    line: int  # 0-based
    key: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line + 1}: [tool.exportlens] {self.key}: {self.message}"

    def finding(self) -> Finding:
        """The editor's diagnostic on the line of the key."""
        return Finding(
            self.path,
            Range.of(self.line, 0, self.line, 0),
            "error",
            "config-error",
            f"[tool.exportlens] {self.key}: {self.message}; this key is not used until it is fixed",
            url=url_for("config-error"),
        )


@dataclass(frozen=True)
class Project:
    """One `pyproject.toml`'s `[tool.exportlens]`: its valid values (field -> value) and errors."""

    path: str | None = None  # None: no project configuration
    values: Mapping[str, Any] = field(default_factory=dict)
    errors: tuple[ConfigError, ...] = ()

    @property
    def folder(self) -> str | None:
        return os.path.dirname(self.path) if self.path else None

    def settings(self, base: Settings, explicit: frozenset[str] = frozenset()) -> Settings:
        """`base` with this project's values, except the fields in `explicit` (the user's own)."""
        return dataclasses.replace(base, **{k: v for k, v in self.values.items() if k not in explicit})


def project_of(path: str) -> Project:
    """The configuration of the nearest `pyproject.toml` with a `[tool.exportlens]` table above
    `path` (a file or a folder)."""
    folder = Path(os.path.abspath(path))
    if not folder.is_dir():
        folder = folder.parent
    for candidate in (folder, *folder.parents):
        pyproject = candidate / FILE
        try:
            stat = pyproject.stat()
        except OSError:
            continue
        project = read(str(pyproject), stat.st_mtime_ns, stat.st_size)
        if project is not None:
            return project
    return Project()


@functools.lru_cache(maxsize=64)
def read(path: str, mtime_ns: int = 0, size: int = 0) -> Project | None:
    """`path`'s `[tool.exportlens]`, None when it has none (cached while the file is unchanged)."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        if "[tool.exportlens" not in text:
            return None  # not ours to report
        where = re.search(r"line (\d+)", str(exc))
        line = int(where[1]) - 1 if where else 0
        return Project(path, {}, (ConfigError(path, line, "pyproject.toml", f"not valid TOML: {exc}"),))
    tool = table.get("tool")
    ours = tool.get("exportlens") if isinstance(tool, dict) else None
    if ours is None:
        return None
    lines = text.splitlines()
    if not isinstance(ours, dict):
        return Project(
            path, {}, (ConfigError(path, key_line(lines, "exportlens"), "tool.exportlens", "a table"),)
        )
    values: dict[str, Any] = {}
    errors: list[ConfigError] = []
    for key, value in ours.items():
        spec = BY_TOML.get(key)
        if spec is None:
            allowed = ", ".join(BY_TOML)
            why = f"unknown key{did_you_mean(key, _SPELLINGS, _SPELLINGS)}: one of {allowed}"
            errors.append(ConfigError(path, key_line(lines, key), key, why))
            continue
        problem = spec.why_not(value)
        if problem is not None:
            errors.append(
                ConfigError(path, key_line(lines, key), key, f"{value!r} is not allowed: {problem}")
            )
            continue
        values[spec.field] = stored(spec, value)
    return Project(path, values, tuple(errors))


def key_line(lines: list[str], key: str) -> int:
    """The 0-based line of `key = ...` inside `[tool.exportlens]` (its header's, else 0)."""
    header = next((i for i, line in enumerate(lines) if line.strip().startswith("[tool.exportlens")), 0)
    pattern = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*[=.]")
    for i in range(header + 1, len(lines)):
        if lines[i].lstrip().startswith("[") and not lines[i].lstrip().startswith("[tool.exportlens"):
            break
        if pattern.match(lines[i]):
            return i
    return header
