"""Failure records kept as JSON (from other torch versions) pointed at the file they came from."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def at_path(value: Any, path: Path) -> Any:
    """`value` with each "{path}" in its strings replaced by `path`."""
    if isinstance(value, str):
        return value.replace("{path}", str(path))
    if isinstance(value, list):
        return [at_path(v, path) for v in value]
    if isinstance(value, dict):
        return {k: at_path(v, path) for k, v in value.items()}
    return value
