"""torch's own verdict on export scripts, without ExportLens: `python export_truth.py FILE...` prints
one JSON line per file, run by the interpreter under test (issue 44).

Each file runs in a forked child (torch imported once): `exports`, `refused` (the export call
raised) or `raised` (the script raised before it), the user's line, and the library line that
decided it: the innermost transformers frame of the traceback (or of an exception it chains), else,
for an output torch cannot flatten, where the model built that object (its constructor's caller,
seen on an eager call of the model on the export's inputs).
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
import traceback
from typing import Any

import torch  # imported once, before the forks

_LIBRARY = "/transformers/"
_SITE, _TORCH = "-packages/", "-packages/torch/"
_UNKNOWN_OUTPUT = re.compile(r"Found <class '([\w.]+)'> in output")


def _chain(error: BaseException) -> list[BaseException]:
    found: list[BaseException] = []
    while error is not None and all(error is not e for e in found):
        found.append(error)
        error = error.__cause__ or error.__context__  # type: ignore[assignment]
    return found


def _innermost(error: BaseException, inside: str) -> list[Any] | None:
    for one in _chain(error):
        found = [f for f in traceback.extract_tb(one.__traceback__) if inside in f.filename]
        if found:
            return [found[-1].filename, found[-1].lineno]
    return None


def _libraries(error: BaseException) -> list[list[Any]]:
    """Every installed library's frame (torch's aside) of the traceback and what it chains."""
    return [
        [f.filename, f.lineno]
        for one in _chain(error)
        for f in traceback.extract_tb(one.__traceback__)
        if _SITE in f.filename and _TORCH not in f.filename
    ]


def _export_call(source: str) -> ast.Call:
    calls = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call)]
    return next(c for c in calls if ast.unparse(c.func) == "torch.export.export")


def _built_at(kind: str, call: ast.Call, ns: dict[str, Any]) -> list[Any] | None:
    """Where the eager model builds the `kind` object it returns: the constructor's caller."""
    module, _, name = kind.rpartition(".")
    cls = getattr(__import__(module, fromlist=[name]), name)
    sites: dict[int, list[Any]] = {}
    original = cls.__init__

    def recording(self: Any, *args: Any, **kwargs: Any) -> None:
        caller = sys._getframe(1)  # its line now: a live frame moves on
        sites.setdefault(id(self), [caller.f_code.co_filename, caller.f_lineno])
        original(self, *args, **kwargs)

    cls.__init__ = recording
    inputs = eval(compile(ast.Expression(call.args[1]), "<args>", "eval"), ns)
    with torch.no_grad():
        out = ns["model"](*inputs)
    values = out.values() if hasattr(out, "values") else out
    made = next(v for v in values if isinstance(v, cls))
    return sites[id(made)]


def verdict(path: str) -> dict[str, Any]:
    source = open(path, encoding="utf-8").read()
    ns: dict[str, Any] = {"__name__": "__main__", "__file__": path}
    try:
        exec(compile(source, path, "exec"), ns)
    except Exception as error:
        user = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == path][-1]
        call = _export_call(source)
        refused = user.lineno == call.lineno
        library = _innermost(error, _LIBRARY)
        kind = _UNKNOWN_OUTPUT.search(str(error))
        if refused and library is None and kind:
            library = _built_at(kind.group(1), call, ns)
        verdict = "refused" if refused else "raised"
        said = {"verdict": verdict, "user_line": user.lineno, "library": library, "error": repr(error)[:300]}
        return {**said, "libraries": _libraries(error)}
    return {"verdict": "exports"}


def main() -> None:
    for path in sys.argv[1:]:
        read, write = os.pipe()
        child = os.fork()
        if child == 0:
            os.close(read)
            said = json.dumps({"path": path, **verdict(path)})
            os.write(write, said.encode())
            os._exit(0)
        os.close(write)
        with os.fdopen(read) as pipe:
            said = pipe.read()
        os.waitpid(child, 0)
        print(said or json.dumps({"path": path, "verdict": "crashed"}), flush=True)


if __name__ == "__main__":
    main()
