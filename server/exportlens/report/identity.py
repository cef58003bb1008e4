"""Which module a result is, across the files of a run: a class exported by a script in another
file (`scripts/export.py` exporting `models/net.py`'s `Net`) is one module, reported in both files
(the defining file gets the script's findings mapped back, check/elsewhere.py). Counted once."""

from __future__ import annotations

from ..findings import FileResult, ModuleResult


def module_identity(result: FileResult, module: ModuleResult) -> tuple[str, str]:
    """(the file that defines its class, the class), when the worker said (its module tree); else
    the file and name it is reported under."""
    root = module.tree["root"] if module.tree else None
    if root is not None and root.get("file"):
        return str(root["file"]), str(root["class"])
    return result.path, module.name.partition("@")[0]
