"""Where a file's imports lead inside the workspace: the one resolver behind export sites
(check/sites.py: which file a `from M import Net` names), result keys (persist/fingerprint.py:
which workspace files a module's results depend on) and a job's `sys.path` (check/jobs.py)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .reading import read_document


def import_roots(roots: list[str]) -> list[str]:
    """Where the workspace's own packages import from: each root, and its `src/` when that holds a
    package (the src layout, which an editable install or `pythonpath = src` puts on sys.path, so
    `scripts/export.py` can `from pkg.model import Net` for `src/pkg/model.py`)."""
    found = []
    for root in roots:
        found.append(root)
        src = Path(root, "src")
        if src.is_dir() and any((child / "__init__.py").is_file() for child in src.iterdir()):
            found.append(str(src))
    return found


@dataclass(frozen=True)
class Imported:
    """One module an import statement names, and the folders its dotted name is looked up from."""

    starts: tuple[Path, ...]
    parts: tuple[str, ...]
    bound: tuple[str, ...] = ()  # the names `from M import a, b` binds unaliased
    names: tuple[str, ...] = ()  # every name after `from M import` (each may be a submodule)


def imports_of(tree: ast.Module, folder: Path, roots: list[str]) -> Iterator[Imported]:
    """The imports of `tree`, a file in `folder`, with a workspace root (or its src/) as the base
    of absolute names and the file's folder too (a script run from its folder)."""
    bases = (folder, *(Path(r) for r in import_roots(roots)))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (Imported(bases, tuple(a.name.split("."))) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # `from .m` is the file's folder, `from ..m` its parent, ...
                ups = [folder, *folder.parents]
                starts: tuple[Path, ...]
                starts = (ups[node.level - 1],) if node.level - 1 < len(ups) else ()
            else:
                starts = bases
            bound = tuple(a.name for a in node.names if a.asname is None)
            names = tuple(a.name for a in node.names if a.name != "*")
            yield Imported(starts, tuple(node.module.split(".")) if node.module else (), bound, names)


def module_files(start: Path, parts: tuple[str, ...]) -> tuple[Path, Path]:
    """The two files a dotted name may be below `start`: a module or a package."""
    stem = start.joinpath(*parts)
    return stem.with_suffix(".py"), stem / "__init__.py"


def loaded_files(tree: ast.Module, folder: Path, roots: list[str]) -> list[str]:
    """Workspace files the imports of `tree` run: `import a.b` runs a/__init__.py then a/b, and
    `from pkg import name` may load pkg/name.py."""
    found: list[str] = []
    for imported in imports_of(tree, folder, roots):
        chains = [imported.parts, *((*imported.parts, n) for n in imported.names)]
        for start in imported.starts:
            for parts in chains:
                for depth in range(1, len(parts) + 1):
                    found += (str(f.resolve()) for f in module_files(start, parts[:depth]) if f.is_file())
    return found


def parsed(path: str) -> ast.Module | None:
    """The syntax tree of a workspace file on disk (None: unreadable or not Python), parsed again
    only when its text changed (reading.py)."""
    try:
        doc = read_document(path)
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    return doc.tree if doc.syntax_error is None else None
