"""A mypy plugin: `record.get("key")` on a TypedDict must name one of its keys.

mypy checks `record["key"]` against the TypedDict but, as PEP 589 allows, accepts `.get()` with
any string and types it `object` (python/mypy#9906). Most fields the worker sends are optional
(worker/wire/records.py), so the server reads them with `.get()`: without this, a field renamed in the
worker and not in diagnosis/ would pass the type check and read None. Loaded by pyproject.toml's
`[tool.mypy] plugins`; the precise return type stays mypy's own.
"""

from __future__ import annotations

from collections.abc import Callable

from mypy.plugin import MethodContext, Plugin
from mypy.plugins.default import typed_dict_get_callback
from mypy.typeops import try_getting_str_literals
from mypy.types import Type, TypedDictType

_GET = "typing.Mapping.get"


def _checked_get(ctx: MethodContext) -> Type:
    record = ctx.type
    if isinstance(record, TypedDictType) and ctx.args and len(ctx.args[0]) == 1:
        keys = try_getting_str_literals(ctx.args[0][0], ctx.arg_types[0][0]) or []
        for key in keys:
            if key not in record.items:
                name = record.fallback.type.name
                ctx.api.fail(f'TypedDict "{name}" has no key "{key}" (its .get() reads nothing)', ctx.context)
    return typed_dict_get_callback(ctx)


class RecordKeys(Plugin):
    def get_method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        return _checked_get if fullname == _GET else None


def plugin(version: str) -> type[Plugin]:
    return RecordKeys
