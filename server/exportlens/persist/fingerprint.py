"""What a file's stored results depend on besides its own text (persist/__init__.py)."""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..document import Document
from ..imports import loaded_files, parsed
from ..reading import read_document

log = logging.getLogger("exportlens.persist")
MAX_IMPORTED_FILES = 500  # a workspace file importing more than this is keyed by the first ones

# Runs in the user's interpreter, imports nothing of torch (~30 ms): where its packages are
# installed (sys.path), and its library folders: code that is not the user's (config/files.py).
# Not isolated (`-I`): with the environment the worker gets, so PYTHONPATH, the user's site and
# PYTHONHOME count as they count for the worker's imports. The answer is the last line: a
# sitecustomize or .pth file may print before it. `where` names the environment, not the path the
# interpreter was called by: `python`, `python3` and a script's shebang of one venv are one
# environment (one daemon, one results store; docs/daemon.md).
_PROBE = (
    "import json, os, site, sys, sysconfig, importlib.util as u\n"
    "p = sysconfig.get_paths()\n"
    "t = u.find_spec('torch')\n"
    "lib = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, p['stdlib'], p['platstdlib'],"
    " p['purelib'], p['platlib'], *site.getsitepackages(), site.getusersitepackages()]\n"
    "lib += list(t.submodule_search_locations or []) if t else []\n"
    "where = [sys.prefix, sys.exec_prefix, os.path.realpath(sys.executable), sys.version]\n"
    "print(json.dumps({'path': sys.path, 'library': lib, 'where': where}))"
)
_INSTALLED = (".dist-info", ".egg-info", ".pth", ".egg-link")


_PACKAGE = Path(__file__).resolve().parent.parent  # server/exportlens, or site-packages/exportlens


@functools.lru_cache(maxsize=4)
def code_digest(package: Path = _PACKAGE) -> str:
    """ExportLens's own code: every file of the package, by name and content. Its version string
    stays `0.1.0` across commits, so an editable install or a newer build from git must never be
    answered from results the old code produced (~10 ms, once per process)."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".pyo"):
            digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@dataclass(frozen=True)
class Environment:
    digest: str  # "" when the interpreter could not be asked: nothing is restored or stored
    torch: str | None = None
    library: tuple[str, ...] = ()  # its prefix, stdlib, site-packages and torch's folder, resolved
    prefix: str = ""  # sys.prefix: the environment (a venv's folder)


def probe_command(python: str | None) -> list[str]:
    # not realpath: a venv's python is a symlink, which outside its venv runs as the base interpreter
    return [os.path.abspath(python or sys.executable), "-c", _PROBE]


@functools.lru_cache(maxsize=8)
def environment(python: str | None) -> Environment:
    """`read_environment` of the interpreter's answer (the CLI's way: it blocks)."""
    command = probe_command(python)
    try:
        probe = subprocess.run(command, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        log.info("no results cache: cannot ask %s (%s)", command[0], exc)
        return Environment("")
    return read_environment(command[0], probe.stdout)


def read_environment(exe: str, answer: str) -> Environment:
    """The interpreter, its `sys.path`, every distribution installed on it (torch's version among
    them: any `pip install` adds, removes or renames a `*.dist-info`), from `answer` (the probe's
    output), and ExportLens's own code."""
    try:
        answered = json.loads(answer.strip().rpartition("\n")[2] or "null")
        if isinstance(answered, list):  # sys.path only (an older probe's answer)
            answered = {"path": answered, "library": []}
        paths = [str(p) for p in answered["path"]]
        library = tuple(dict.fromkeys(os.path.realpath(str(p)) for p in answered["library"] if p))
        where = [str(w) for w in answered.get("where") or [exe]]
    except (ValueError, TypeError, KeyError) as exc:
        log.info("no results cache: %s answered %r (%s)", exe, answer[:200], exc)
        return Environment("")
    installed: list[str] = []
    torch = None
    for folder in paths:
        try:
            entries = (
                [e for e in os.scandir(folder) if e.name.endswith(_INSTALLED)]
                if os.path.isdir(folder)
                else []
            )
        except OSError:
            continue
        installed += (f"{folder}/{e.name}@{e.stat().st_mtime_ns}" for e in entries)
        torch = torch or next(
            (e.name.removesuffix(".dist-info").split("-")[1] for e in entries if e.name.startswith("torch-")),
            None,
        )
    # the path itself: a folder on PYTHONPATH may hold plain modules, which no *.dist-info names
    digest = _digest(code_digest(), *where, "\0", *paths, "\0", *sorted(installed))
    return Environment(digest, torch, library, where[0] if len(where) > 1 else "")


def imported_files(doc: Document, roots: list[str]) -> list[str]:
    """The workspace files `doc` imports, directly or through each other (sorted)."""
    seen: set[str] = set()
    todo = [(doc.path, doc.tree if doc.syntax_error is None else None)]
    while todo and len(seen) < MAX_IMPORTED_FILES:
        path, tree = todo.pop()
        if tree is None:
            continue
        for found in loaded_files(tree, Path(path).parent, roots):
            if found not in seen and found != doc.path:
                seen.add(found)
                todo.append((found, parsed(found)))
    return sorted(seen)


def context(
    doc: Document,
    roots: list[str],
    env: Environment,
    salt: tuple[object, ...],
    elsewhere: Sequence[str] = (),
) -> str:
    """The digest a file's stored results are valid under ("" when there is no environment).
    `elsewhere`: the files whose checks check modules of `doc` (its export sites, its parent
    file: check/plan.py); their texts and what they import count as much as `doc`'s imports."""
    if not env.digest:
        return ""
    parts = [env.digest, repr(salt)]
    files = set(imported_files(doc, roots))
    for other in elsewhere:
        files.add(other)
        try:
            files.update(imported_files(read_document(other), roots))
        except (OSError, SyntaxError, UnicodeDecodeError):
            pass  # its own text's digest below says it changed
    files.discard(doc.path)
    for path in sorted(files):
        try:
            parts.append(path + "\0" + hashlib.sha256(Path(path).read_bytes()).hexdigest())
        except OSError:
            parts.append(path + "\0gone")
    return _digest(*parts)


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
