"""Export sites elsewhere: a workspace file whose export call builds a module of this file.

E.g. `scripts/export.py` does `from models.net import Net` and then
`torch.export.export(Net(), (x,))`.  That call's inputs beat inference, and a
module with no inputs of its own gets checked at all.  Its job runs that file
(from disk), and the findings that land in the module's file are published for it.
A compile call counts the same way (`train.py`: `m = torch.compile(Net()); m(x)`): the module
is then checked as compiled there, and a graph break's fix in this file is proven through that
file's call (fixes/proof.py).

A site counts when it exports a name bound by `from M import Name` and `M`
resolves (from a workspace root or its `src/`, the site's folder, or relatively)
to the module's file.  Not recognised: `import models.net as n; export(n.Net(), ...)`
and aliases (`import Net as N`).

A parent file (`parent_file`) is one whose module with real inputs (an export call, an
`example_inputs` method) imports this file, directly or through one other workspace file:
`model.py` exporting `GPT`, built of `blocks.py`'s `Block`. Its export records what the classes
of this file receive there, and they are checked with that (parts.py).
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

from ..discovery import REAL_INPUTS, discovery_of
from ..document import Document
from ..imports import imports_of, loaded_files, module_files, parsed
from ..reading import read_document

# A parent file's modules: with real inputs, or fed by the first call of their compile call (its
# check records what the parts receive as an export's does)
PARENT_INPUTS = (*REAL_INPUTS, "compile-call")
SKIP_DIRS = {"venv", "env", "node_modules", "__pycache__", "site-packages", "build", "dist"}  # and hidden
MAX_FILES = 5000
# exported class name -> the files its import could come from
Exports = dict[str, set[str]]


class SiteIndex:
    """Export calls of the workspace; a file is re-read when its mtime (or the roots) change."""

    def __init__(self) -> None:
        # path -> (mtime, roots, its export calls' classes, its compile calls' classes)
        self._files: dict[str, tuple[float, tuple[str, ...], Exports, Exports]] = {}
        # (path, roots) -> (mtime, the workspace files its imports run)
        self._links: dict[tuple[str, tuple[str, ...]], tuple[float, frozenset[str]]] = {}

    def find(self, roots: list[str], class_name: str, module_path: str) -> str | None:
        """The first workspace file (sorted) whose export call builds `class_name` of `module_path`,
        else the first whose compile call does (an export's inputs are what an export check needs)."""
        paths = [p for p in self._scan(roots) if p != module_path]
        for compiled in (False, True):
            for path in paths:
                if module_path in self._calls(path, roots)[compiled].get(class_name, ()):
                    return path
        return None

    def parent_file(self, roots: list[str], module_path: str) -> str | None:
        """The first workspace file (sorted) with a module that has real inputs and imports
        `module_path`, else the first whose imports reach it through other files (a package's
        `__init__` importing the file that imports it: SAM's `common.py`)."""
        files = [p for p in self._scan(roots) if p != module_path]
        loads = {p: self._loads(p, roots) for p in files}
        direct = [p for p in files if module_path in loads[p]]
        found = next((p for p in direct if self._real(p)), None)
        if found is None:
            found = next((p for p in files if self._reaches(p, module_path, loads) and self._real(p)), None)
        return found

    @staticmethod
    def _reaches(path: str, module_path: str, loads: dict[str, frozenset[str]]) -> bool:
        """Whether running the imports of `path` runs `module_path`, through any number of files."""
        seen, todo = {path}, [path]
        while todo:
            for loaded in loads.get(todo.pop(), frozenset()):
                if loaded == module_path:
                    return True
                if loaded not in seen:
                    seen.add(loaded)
                    todo.append(loaded)
        return False

    def _loads(self, path: str, roots: list[str]) -> frozenset[str]:
        """The workspace files the imports of `path` run (its syntax tree is parsed once per mtime)."""
        key = (path, tuple(roots))
        try:
            mtime = os.stat(path).st_mtime
        except OSError:
            return frozenset()
        cached = self._links.get(key)
        if cached and cached[0] == mtime:
            return cached[1]
        tree = parsed(path)
        loads = frozenset(loaded_files(tree, Path(path).parent, roots)) if tree else frozenset()
        self._links[key] = (mtime, loads)
        return loads

    def _real(self, path: str) -> bool:
        """A module of `path` has real inputs (an export call, an `example_inputs` method) or is
        compiled and called."""
        try:
            doc = read_document(path)  # parsed once per text, however many checks ask
        except (OSError, SyntaxError, UnicodeDecodeError):
            return False
        if not any(word in doc.text for word in ("export", "example_inputs", "compile")):
            return False
        return doc.syntax_error is None and any(
            t.inputs_kind in PARENT_INPUTS for t in discovery_of(doc).subjects
        )

    def _scan(self, roots: list[str]) -> list[str]:
        found: list[str] = []
        for root in roots:
            for folder, dirs, files in os.walk(root):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
                found += (str(Path(folder, f).resolve()) for f in sorted(files) if f.endswith(".py"))
                if len(found) > MAX_FILES:
                    return found
        return found

    def _calls(self, path: str, roots: list[str]) -> tuple[Exports, Exports]:
        """The imported classes `path` exports, and those it compiles, with the files each may be."""
        try:
            mtime = os.stat(path).st_mtime
        except OSError:
            return {}, {}
        cached = self._files.get(path)
        if cached and cached[0] == mtime and cached[1] == tuple(roots):
            return cached[2], cached[3]
        exports: Exports = {}
        compiles: Exports = {}
        try:
            doc = read_document(path)
        except (OSError, SyntaxError, UnicodeDecodeError):
            doc = Document(path, "")
        if ("export" in doc.text or "compile" in doc.text) and doc.syntax_error is None:
            imported = [t for t in discovery_of(doc).subjects if t.class_name is None]  # not defined here
            sources = import_sources(doc.tree, Path(path).parent, roots)
            for t in imported:
                if t.name in sources:
                    (compiles if t.compile is not None else exports)[t.name] = sources[t.name]
        self._files[path] = (mtime, tuple(roots), exports, compiles)
        return exports, compiles


def import_sources(tree: ast.Module, folder: Path, roots: list[str]) -> Exports:
    """For each name bound by `from M import Name`, the files M may be."""
    sources: Exports = {}
    for imported in imports_of(tree, folder, roots):
        files = {str(f.resolve()) for start in imported.starts for f in module_files(start, imported.parts)}
        for name in imported.bound:
            sources.setdefault(name, set()).update(files)
    return sources
