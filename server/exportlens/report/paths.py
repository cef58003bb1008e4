"""Paths as users typed them: relative to the working folder when inside it."""

from __future__ import annotations

import os
from pathlib import Path


def display_path(path: str, cwd: Path) -> str:
    try:
        return Path(path).resolve().relative_to(cwd.resolve()).as_posix()
    except ValueError:
        return path.replace(os.sep, "/")
