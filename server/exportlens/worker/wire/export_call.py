"""Where an export call gives each of torch's parameters, positional or keyword: the one reading
discovery (which module, which examples), diagnosis, fixes and the worker (what it evaluates) share.

`torch.export.export(mod, args, kwargs=None, *, dynamic_shapes=None, strict=...)` and `draft_export`
take the same; `export(mod=Net(), args=(x,))` is as valid as `export(Net(), (x,))`. Stdlib only
(the worker loads this package in the user's interpreter).
"""

from __future__ import annotations

import ast

POSITIONAL = ("mod", "args", "kwargs")  # the rest are keyword-only


def export_argument(call: ast.Call, name: str) -> ast.expr | None:
    """The expression `call` gives for torch's parameter `name`, else None (not given, or behind a
    `*starred` argument, whose place only running says)."""
    if name in POSITIONAL:
        index = POSITIONAL.index(name)
        before = call.args[: index + 1]
        if index < len(call.args) and not any(isinstance(a, ast.Starred) for a in before):
            return call.args[index]
    return next((k.value for k in call.keywords if k.arg == name), None)
