"""Execute the buffer text as a real module whose filename is the real path.

linecache gets the buffer's lines (with no mtime, so nothing invalidates
them), hence tracebacks, inspect and `node.meta["stack_trace"]` all point at
the lines the user is looking at, saved or not.  Only the top level up to
`stop` (the first statement that would itself run an export) is executed.
The child parses the buffer once (`parse`); loading and building inputs share that tree.
"""

from __future__ import annotations

import ast
import importlib
import linecache
import os
import sys
import types

# Model hubs: user code calling `from_pretrained(...)` reads the local cache only.  Nothing
# in a check touches the network (a hub retrying an unreachable host would outlast the job's
# timeout); a user who wants otherwise sets the variable in the worker's environment.
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


def parse(path: str, source: str) -> ast.Module:
    """The buffer's one syntax tree in the child; nothing changes it (`load_module` runs a copy of
    its top level, inputs.py evaluates its nodes)."""
    return ast.parse(source, path)


def load_module(
    path: str, source: str, tree: ast.Module, module_name: str, search_path: list[str], stop: list[int] | None
) -> types.ModuleType:
    for key, value in OFFLINE.items():
        os.environ.setdefault(key, value)  # in the job's forked child only
    # As `python file.py` would see it: scripts parse their arguments (argparse defaults) before
    # building the model; the worker's own arguments would make them exit.
    sys.argv = [path]
    for entry in reversed(search_path):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    linecache.cache[path] = (len(source), None, source.splitlines(keepends=True), path)
    module = types.ModuleType(module_name)
    module.__file__ = path
    parent = module_name.rpartition(".")[0]
    if parent:
        module.__package__ = parent
        # As `import pkg.mod` does: the parent packages first, their `__init__.py` files included
        # (which may import this very file, from disk: then the buffer's version replaces it).
        importlib.import_module(parent)
        sys.modules[module_name] = module
        setattr(sys.modules[parent], module_name.rpartition(".")[2], module)
    else:
        # Register so pickling, dataclasses and typing can find the module; never
        # replace one that is already imported (a file called `copy.py`, say).
        sys.modules.setdefault(module_name, module)
    body = tree.body
    if stop is not None:
        cut = next((i for i, s in enumerate(body) if [s.lineno, s.col_offset] == list(stop)), len(body))
        body = body[:cut]
    top = ast.Module(body=body, type_ignores=tree.type_ignores)
    exec(compile(top, path, "exec", dont_inherit=True), module.__dict__)  # noqa: S102
    return module
