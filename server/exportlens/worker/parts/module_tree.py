"""Which class a job exports, and the workspace classes its module is built from.

Only running the user's code tells what `build_model(cfg)`, `Model.from_name("b0")`,
`load_model(path)` or `wrapper.module` is: the child has the object. It reports the object's
class (any class: a library's is named too) and, for each class of a workspace file (the checked
file, or a file below a folder of the job's sys.path that is not installed code) among its
submodules, the class and its file. The check then knows which classes this export already
covers: the exported class and its parts get no guessed-inputs job of their own (covered.py).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from ..wire.records import ModuleTree, TreeClass


def module_tree(job: Any, module: Any) -> ModuleTree:
    where = Workspace(job)
    root = type(module)
    parts: dict[tuple[str, str], TreeClass] = {}
    for sub in module.modules():
        cls = type(sub)
        file = where.file_of(cls)
        if cls is not root and file is not None:
            parts.setdefault((file, cls.__qualname__), {"class": cls.__qualname__, "file": file})
    return {"root": {"class": root.__qualname__, "file": where.file_of(root)}, "parts": list(parts.values())}


class Workspace:
    """Where a class is defined, when that is a workspace file: the job's own file (however it
    was loaded), or a `.py` file below a folder of the job's sys.path that is no installed code
    (site-packages, the interpreter's own prefixes)."""

    def __init__(self, job: Any) -> None:
        self.path, self.module_name = str(Path(job["path"]).resolve()), job["module_name"]
        self.folders = [Path(p).resolve() for p in job["sys_path"] if p]
        self._files: dict[str, str | None] = {}

    def file_of(self, cls: type) -> str | None:
        if cls.__module__ == self.module_name:
            return self.path
        if cls.__module__ not in self._files:
            self._files[cls.__module__] = self._workspace_file(cls.__module__)
        return self._files[cls.__module__]

    def _workspace_file(self, module: str) -> str | None:
        file = getattr(sys.modules.get(module), "__file__", None)
        if not isinstance(file, str) or not file.endswith(".py"):
            return None
        resolved = Path(file).resolve()
        if {"site-packages", "dist-packages"} & set(resolved.parts) or _installed(resolved):
            return None
        return str(resolved) if any(resolved.is_relative_to(f) for f in self.folders) else None


def _installed(file: Path) -> bool:
    """Under the interpreter's own prefixes (the standard library, a venv's)."""
    prefixes = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix) if p}
    return any(file.is_relative_to(p) for p in prefixes if p != Path(os.sep))
