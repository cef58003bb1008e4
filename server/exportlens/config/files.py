"""Which files are the user's to check: the CLI's folder walk and the server's refusal of library code.

Never checked: files matched by `exclude` (globs relative to the project's folder); in the server,
files inside the interpreter's prefix, site-packages, the standard library or torch's folder (the
interpreter's own answer, persist/fingerprint.py's probe). Skipped by a folder walk: virtual
environments (a folder with `pyvenv.cfg`), hidden and build folders, and what git ignores (git's
own answer, in a git checkout). A path given by name is checked whatever the walk would skip, if
it is Python: a `.py`, a notebook, or a script whose first line is a Python shebang (pre-commit's
`types: [python]`); any other (`pyproject.toml`) is skipped with a note, not read as Python.
"""

from __future__ import annotations

import fnmatch
import os
import site
import subprocess
import sys
import sysconfig
from collections.abc import Iterable
from pathlib import Path

PYTHON_SUFFIXES = (".py", ".ipynb")


def not_python(path: str) -> str | None:
    """Why the file named `path` is no Python to check, or None when it is."""
    if path.endswith(PYTHON_SUFFIXES):
        return None
    try:
        with open(path, "rb") as file:
            first = file.readline(200)
    except OSError:
        first = b""
    if first.startswith(b"#!") and b"python" in first:
        return None
    return f"skipped {path}: not a Python file (only .py files, notebooks and Python scripts are checked)"


SKIPPED_FOLDERS = frozenset(
    {"__pycache__", "node_modules", "build", "dist", "site-packages", "dist-packages", "__pypackages__"}
)


def excluded(path: str, patterns: Iterable[str], base: str | None) -> str | None:
    """The first of `patterns` that matches `path` (relative to `base`, any of its parent folders,
    or its name), else None."""
    patterns = tuple(patterns)
    if not patterns:
        return None
    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute, base) if base else absolute
    if relative.startswith(".."):
        relative = absolute
    parts = Path(relative).as_posix().split("/")
    candidates = ["/".join(parts[: i + 1]) for i in range(len(parts))] + [parts[-1]]
    for pattern in patterns:
        pattern = pattern.rstrip("/")
        if any(fnmatch.fnmatchcase(c, pattern) for c in candidates):
            return pattern
        if pattern.startswith("**/") and any(fnmatch.fnmatchcase(c, pattern[3:]) for c in candidates):
            return pattern
    return None


def inside_library(path: str, folders: Iterable[str]) -> str | None:
    """The library folder (prefix, site-packages, stdlib, torch) `path` is inside, else None."""
    real = os.path.realpath(path)
    for folder in folders:
        if real == folder or real.startswith(folder.rstrip(os.sep) + os.sep):
            return folder
    return None


def own_library() -> tuple[str, ...]:
    """This interpreter's library folders, as the probe answers them for another one
    (persist/fingerprint.py): its prefixes, standard library and site-packages, resolved."""
    paths = sysconfig.get_paths()
    found = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]
    found += [paths["stdlib"], paths["platstdlib"], paths["purelib"], paths["platlib"]]
    found += [*site.getsitepackages(), site.getusersitepackages()]
    return tuple(dict.fromkeys(os.path.realpath(f) for f in found if f))


def is_venv(folder: str) -> bool:
    return os.path.isfile(os.path.join(folder, "pyvenv.cfg"))


def git_ignored(folder: str) -> set[str] | None:
    """Absolute paths (files, and folders ending in /) git ignores under `folder`; None outside a
    git checkout or without git."""
    try:
        answer = subprocess.run(
            ["git", "ls-files", "--others", "--ignored", "--exclude-standard", "--directory", "-z"],  # noqa: S607 - the user's git
            cwd=folder,
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if answer.returncode != 0:
        return None
    ignored = set()
    for entry in answer.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if entry:
            ignored.add(os.path.join(os.path.abspath(folder), entry.rstrip("/")))
    return ignored


def walk(folder: str, exclude: Iterable[str] = (), base: str | None = None) -> list[Path]:
    """The Python files under `folder` a check should read, sorted."""
    exclude = tuple(exclude)
    ignored = git_ignored(folder) or set()
    found: list[Path] = []
    for here, dirs, files in os.walk(folder):
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".")
            and d not in SKIPPED_FOLDERS
            and not d.endswith(".egg-info")
            and not is_venv(os.path.join(here, d))
            and os.path.abspath(os.path.join(here, d)) not in ignored
            and excluded(os.path.join(here, d), exclude, base) is None
        )
        for name in sorted(files):
            path = os.path.join(here, name)
            if (
                name.endswith(PYTHON_SUFFIXES)
                and os.path.abspath(path) not in ignored
                and excluded(path, exclude, base) is None
            ):
                found.append(Path(path))
    return found
