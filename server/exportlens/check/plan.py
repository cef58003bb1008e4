"""A check's plan: where each module of a document is checked, and which modules an edit re-checks.

Where (`place`), the same for the CLI and the editor: by the document's own check, or by running
another workspace file (check/elsewhere.py):
- an export site: a workspace file whose export call builds a module of this file without real
  inputs of its own (`scripts/export.py` exporting `models/net.py`'s `Net`);
- a parent file: the classes without real inputs that no module of this file is built from, nor
  any export site names, are parts of what another workspace file exports (`blocks.py`'s `Block`
  in `model.py`'s `GPT`): that export records the inputs they are checked with.

Which, in which order (`plan`), the scheduler's decision on an edit, pure:
- forced (open, save, the re-check command): every module;
- otherwise the modules whose result key changed (keys.py), or that have no result yet;
- a module checked through another file's export call runs that file from disk: only when forced;
- those whose class the edit touched (or the editor's cursor is in) go first, then the rest; a
  part goes with its parent (whose export records the inputs it is checked with), and so does a
  class no export is known to cover with the modules whose exports may cover it.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..discovery import Discovery, Subject, discovery_of
from ..document import Document
from ..findings import FileResult
from ..reading import read_document
from .covered import with_exporters
from .jobs import CheckOptions
from .keys import touched
from .sites import SiteIndex
from .static_findings import encoding_finding

# The files whose presence marks a project's root, as an editor's workspace folder does.
ROOT_MARKERS = ("pyproject.toml", ".git")


@dataclass(frozen=True)
class Placement:
    """Where the modules of a document that its own check does not export are checked."""

    sites: Mapping[str, str] = field(default_factory=dict)  # module -> file with its export call
    parents: Mapping[str, str] = field(default_factory=dict)  # module -> file whose export records it

    def elsewhere(self) -> dict[str, str]:
        """Module -> the other file whose check checks it."""
        return {**self.parents, **self.sites}

    def files(self) -> list[str]:
        return sorted(set(self.sites.values()) | set(self.parents.values()))


def place(doc: Document, index: SiteIndex, roots: list[str]) -> Placement:
    """Where the modules of `doc` are checked, when not by its own check: reads the workspace
    (export calls and imports of its files), never runs anything."""
    if doc.syntax_error is not None:
        return Placement()
    subjects = discovery_of(doc).subjects
    sites = export_sites(index, roots, subjects, doc.path)
    return Placement(sites, parent_files(index, roots, subjects, doc.path, sites))


def workspace_root(path: str, cwd: str) -> str:
    """The folder a file is checked in, as the editor's workspace folder: the nearest folder above
    `path` that holds a `pyproject.toml` or `.git`; else `cwd` when `path` is inside it; else the
    file's own folder."""
    file = Path(path).resolve()
    for folder in file.parents:
        if any((folder / marker).exists() for marker in ROOT_MARKERS):
            return str(folder)
    here = Path(cwd).resolve()
    return str(here) if file.is_relative_to(here) else str(file.parent)


@dataclass(frozen=True)
class PlannedFile:
    """A file of the CLI's, read and planned: its document, its options (its workspace root) and
    where its modules are checked."""

    doc: Document
    options: CheckOptions
    placement: Placement


def plan_file(
    path: str, options: CheckOptions, index: SiteIndex | None, root: str | None = None
) -> PlannedFile | FileResult:
    """Read `path` and place its modules in its workspace: `root`, else the folder `workspace_root`
    finds, as the editor's workspace folder. `index` None: no export sites, no parent files. A
    file that cannot be read is its result already (the finding that says why)."""
    path = str(Path(path).resolve())
    try:
        doc = read_document(path)
    except (SyntaxError, UnicodeDecodeError) as exc:  # undecodable: a finding, not a crash
        return FileResult(path, diagnostics=[encoding_finding(path, exc)])
    roots = [str(Path(root).resolve()) if root else workspace_root(path, os.getcwd())]
    placement = place(doc, index, roots) if index is not None else Placement()
    return PlannedFile(doc, dataclasses.replace(options, roots=roots), placement)


def export_sites(index: SiteIndex, roots: list[str], subjects: list[Subject], path: str) -> dict[str, str]:
    """Module -> the other file whose export call builds it."""
    sites: dict[str, str] = {}
    for subject in subjects:
        if subject.class_name and subject.inputs_kind in ("none", "inferred"):
            site = index.find(roots, subject.class_name, path)
            if site:
                sites[subject.name] = site
    return sites


def parent_files(
    index: SiteIndex, roots: list[str], subjects: list[Subject], path: str, sites: dict[str, str]
) -> dict[str, str]:
    """Module -> the other file whose export records the inputs it is checked with: the classes
    without real inputs that are no part of a module of this file, nor exported elsewhere."""
    candidates = [
        t
        for t in subjects
        if t.class_name
        and t.inputs_kind in ("none", "inferred")
        and t.part_of is None
        and t.name not in sites
    ]
    if not candidates:
        return {}
    parent = min(sites.values(), default=None) or index.parent_file(roots, path)
    return {t.name: parent for t in candidates} if parent else {}


def plan(
    found: Discovery,
    keys: Mapping[str, str],
    cached: Mapping[str, str],
    sites: Mapping[str, str],
    changed_lines: set[int],
    force: bool,
) -> tuple[list[Subject], list[Subject]]:
    """(first, rest): `cached` maps a module to the key of its cached result, `sites` a module to
    the other file whose export call checks it."""
    todo = [t for t in found.subjects if force or cached.get(t.name) != keys[t.name]]
    todo = [t for t in todo if force or t.name not in sites]
    first_names = touched(found, changed_lines)
    # A part runs with its parent, whose export records its inputs: the two share a batch.
    first_names |= {t.part_of for t in found.subjects if t.name in first_names and t.part_of}
    first_names |= {t.name for t in found.subjects if t.part_of in first_names}
    # A class no export is known to cover goes with the modules whose exports may (covered.py).
    first_names |= {
        t.name for t in with_exporters([t for t in found.subjects if t.name in first_names], found.subjects)
    }
    return [t for t in todo if t.name in first_names], [t for t in todo if t.name not in first_names]
