"""Execute the buffer text as a real module whose filename is the real path.

linecache gets the buffer's lines (with no mtime, so nothing invalidates
them), hence tracebacks, inspect and `node.meta["stack_trace"]` all point at
the lines the user is looking at, saved or not.  Only the top level up to
`stop` (the first statement that would itself run an export) is executed.
The child parses the buffer once (`parse`); loading and building inputs share that tree.
The worker parses and compiles it before forking (`prime`): a file of a hundred modules is a
hundred jobs on one text, and each child inherits the tree and the code instead of redoing them.
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


PRIMED_AT_MOST = 8  # texts kept by the worker: the files being checked now, not a history
_primed: dict[tuple[str, str], tuple[ast.Module, dict[tuple[int, ...] | None, types.CodeType]]] = {}


def prime(path: str, source: str, stop: list[int] | None) -> None:
    """In the worker, before it forks a job's child: parse and compile the text once for every job on
    it (a text that does not parse is the child's to report)."""
    key = (path, source)
    if key not in _primed:
        try:
            tree = ast.parse(source, path)
        except (SyntaxError, ValueError):
            return
        while len(_primed) >= PRIMED_AT_MOST:
            del _primed[next(iter(_primed))]
        _primed[key] = (tree, {})
    tree, codes = _primed[key]
    cut = None if stop is None else tuple(stop)
    if cut not in codes:
        try:
            codes[cut] = compile(_top(tree, stop), path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            return


def parse(path: str, source: str) -> ast.Module:
    """The buffer's one syntax tree in the child (the worker's, when it primed it); nothing changes
    it (`load_module` runs a copy of its top level, inputs.py evaluates its nodes)."""
    primed = _primed.get((path, source))
    return primed[0] if primed is not None else ast.parse(source, path)


def _top(tree: ast.Module, stop: list[int] | None) -> ast.Module:
    """The top level up to `stop`: what loading runs."""
    body = tree.body
    if stop is not None:
        cut = next((i for i, s in enumerate(body) if [s.lineno, s.col_offset] == list(stop)), len(body))
        body = body[:cut]
    return ast.Module(body=body, type_ignores=tree.type_ignores)


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
    primed = _primed.get((path, source))
    code = primed[1].get(None if stop is None else tuple(stop)) if primed and primed[0] is tree else None
    exec(code or compile(_top(tree, stop), path, "exec", dont_inherit=True), module.__dict__)  # noqa: S102
    return module
