"""Check a decoded JSON value against a TypedDict declaration (protocol.py's), stdlib only.

What is checked: objects have their required keys, lists and maps hold the declared shapes,
`Literal` values are among those declared, a union of TypedDicts tagged by a `Literal` key
(`op`, `event`, `kind`) is the option its tag names.  Plain scalars (str, int, bool, ...) are
not checked: both ends are this package's code, and a value torch gave a record an unexpected
type must not make a whole answer unreadable.
"""

from __future__ import annotations

import functools
import types
import typing
from typing import Any, Literal, Union


class ShapeError(ValueError):
    """The value is not the declared shape; the message says where (`message.job.target`)."""


def check(value: object, declared: Any, where: str) -> None:
    origin = typing.get_origin(declared)
    if typing.is_typeddict(declared):
        if not isinstance(value, dict):
            raise ShapeError(f"{where} is {_kind(value)}, not an object ({declared.__name__})")
        missing = sorted(set(declared.__required_keys__) - value.keys())
        if missing:
            raise ShapeError(f"{where} ({declared.__name__}) lacks {', '.join(missing)}")
        for key, inner in _hints(declared).items():
            if key in value:
                check(value[key], inner, f"{where}.{key}")
    elif origin is Literal:
        if value not in typing.get_args(declared):
            allowed = ", ".join(map(repr, typing.get_args(declared)))
            raise ShapeError(f"{where} is {value!r}, not one of {allowed}")
    elif origin in (Union, types.UnionType):
        _check_union(value, typing.get_args(declared), where)
    elif origin is list:
        if not isinstance(value, list):
            raise ShapeError(f"{where} is {_kind(value)}, not a list")
        for index, item in enumerate(value):
            check(item, typing.get_args(declared)[0], f"{where}[{index}]")
    elif origin is dict:
        if not isinstance(value, dict):
            raise ShapeError(f"{where} is {_kind(value)}, not an object")
        for key, item in value.items():
            check(item, typing.get_args(declared)[1], f"{where}.{key}")


def _check_union(value: object, options: tuple[Any, ...], where: str) -> None:
    if value is None and type(None) in options:
        return
    options = tuple(o for o in options if o is not type(None))  # anything passes an unchecked type
    tag = _tag(options)
    if tag is not None:  # the tag picks the option, so the error names what is really wrong
        if not isinstance(value, dict):
            raise ShapeError(f"{where} is {_kind(value)}, not an object")
        for option in options:
            if value.get(tag) in typing.get_args(_hints(option)[tag]):
                check(value, option, where)
                return
        allowed = ", ".join(repr(v) for o in options for v in typing.get_args(_hints(o)[tag]))
        raise ShapeError(f"{where}.{tag} is {value.get(tag)!r}, not one of {allowed}")
    errors = []
    for option in options:
        try:
            check(value, option, where)
            return
        except ShapeError as exc:
            errors.append(exc)
    raise errors[0]


@functools.cache
def _hints(typed_dict: Any) -> dict[str, Any]:
    return typing.get_type_hints(typed_dict)


@functools.cache
def _tag(options: tuple[Any, ...]) -> str | None:
    """The key every option of a union of TypedDicts requires as a `Literal`, if any."""
    if not all(typing.is_typeddict(o) for o in options):
        return None
    keys = set.intersection(*(set(o.__required_keys__) for o in options))
    tags = [k for k in sorted(keys) if all(typing.get_origin(_hints(o)[k]) is Literal for o in options)]
    return tags[0] if tags else None


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__
