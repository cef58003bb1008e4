"""Whether a job's build needs devices.py's redirect at all (issue 32: the hot path).

The redirect (a torch function mode over every call of the load and the build, and the device
questions answered) costs ~20 % of a build's CPU (12 ms of a 12-layer transformer's 57). A file
that names no device, imports no workspace file (which might) and runs on a machine with no
accelerator (where a library choosing the GPU by itself would reach it) has nothing for it to
redirect: it is built as it is.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterable

# What code that places tensors on a device, or asks for one, says somewhere.
DEVICE_WORDS = re.compile(r"cuda|device|mps|xpu|hpu|npu|gpu|accelerator|is_available|autocast|\.to\(")


def needs_redirect(source: str, tree: ast.Module | None, sys_path: Iterable[str]) -> bool:
    if DEVICE_WORDS.search(source) or tree is None:
        return True
    if imports_workspace(tree, [p for p in sys_path if p]):
        return True
    return has_accelerator()


def imports_workspace(tree: ast.Module, sys_path: list[str]) -> bool:
    """An import of a module found on the job's sys.path (the workspace's folders), or a
    relative one."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                return True
            names = [node.module or ""]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            top = name.partition(".")[0]
            if top and any(_module_in(folder, top) for folder in sys_path):
                return True
    return False


def _module_in(folder: str, name: str) -> bool:
    return os.path.isfile(os.path.join(folder, name + ".py")) or os.path.isdir(os.path.join(folder, name))


def has_accelerator() -> bool:
    import torch

    mps = getattr(torch.backends, "mps", None)
    return bool(torch.cuda.is_available() or (mps is not None and mps.is_available()))
