"""Check a decoded JSON value against a TypedDict declaration (protocol.py's), stdlib only.

What is checked: objects have their required keys, lists and maps hold the declared shapes,
`Literal` values are among those declared, a union of TypedDicts tagged by a `Literal` key
(`op`, `event`, `kind`) is the option its tag names.  Plain scalars (str, int, bool, ...) are
not checked: both ends are this package's code, and a value torch gave a record an unexpected
type must not make a whole answer unreadable.  Each type is compiled once into a check: decoding
a large model's result costs a few ms more than its `json.loads`.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, Union


class ShapeError(ValueError):
    """The value is not the declared shape; the message says where (`message.job.target`)."""


class _Mismatch(Exception):
    """Raised by a compiled check; the enclosing checks add where (`.key`, `[index]`) on the way out."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem
        self.path: list[str] = []  # innermost first


Check = Callable[[object], None]


def check(value: object, declared: Any, where: str) -> None:
    checker = _compiled(declared)
    if checker is None:
        return
    try:
        checker(value)
    except _Mismatch as exc:
        raise ShapeError(f"{where}{''.join(reversed(exc.path))} {exc.problem}") from None


@functools.cache
def _compiled(declared: Any) -> Check | None:
    """A check for values of `declared`, made once per type; None: nothing to check (a scalar)."""
    if typing.is_typeddict(declared):
        return _typed_dict(declared)
    origin, args = typing.get_origin(declared), typing.get_args(declared)
    if origin is Literal:
        return _literal(args)
    if origin in (Union, types.UnionType):
        return _union(args)
    if origin is list:
        return _container(list, "a list", _compiled(args[0]), enumerate, "[{}]")
    if origin is dict:
        return _container(dict, "an object", _compiled(args[1]), dict.items, ".{}")
    return None


def _typed_dict(declared: Any) -> Check:
    required = frozenset(declared.__required_keys__)
    name = declared.__name__
    fields: list[tuple[str, Check]] = []
    resolved = False  # the field checks are made at the first use: a record holds records (`more`)

    def run(value: object) -> None:
        nonlocal resolved
        if not isinstance(value, dict):
            raise _Mismatch(f"is {_kind(value)}, not an object ({name})")
        if not required <= value.keys():
            raise _Mismatch(f"({name}) lacks {', '.join(sorted(required - value.keys()))}")
        if not resolved:
            fields.extend((k, c) for k, t in _hints(declared).items() if (c := _compiled(t)) is not None)
            resolved = True
        for key, field_check in fields:
            if key in value:
                try:
                    field_check(value[key])
                except _Mismatch as exc:
                    exc.path.append(f".{key}")
                    raise

    return run


def _literal(allowed: tuple[Any, ...]) -> Check:
    def run(value: object) -> None:
        if value not in allowed:
            raise _Mismatch(f"is {value!r}, not one of {', '.join(map(repr, allowed))}")

    return run


def _container(kind: type, called: str, item: Check | None, entries: Any, step: str) -> Check:
    def run(value: object) -> None:
        if not isinstance(value, kind):
            raise _Mismatch(f"is {_kind(value)}, not {called}")
        if item is None:
            return  # a list of str (a graph's ops per line) is not walked item by item
        for key, entry in entries(value):
            try:
                item(entry)
            except _Mismatch as exc:
                exc.path.append(step.format(key))
                raise

    return run


def _union(options: tuple[Any, ...]) -> Check | None:
    nullable = type(None) in options
    rest = tuple(o for o in options if o is not type(None))
    compiled = [_compiled(o) for o in rest]
    checks = [c for c in compiled if c is not None]
    if len(checks) < len(compiled):
        return None  # an unchecked option (a scalar) accepts anything
    tag = _tag(rest)
    # A tagged union: the tag picks the option, so an error names what is really wrong with it.
    by_tag = (
        {v: c for o, c in zip(rest, checks, strict=True) for v in typing.get_args(_hints(o)[tag])}
        if tag
        else {}
    )

    def run(value: object) -> None:
        if value is None and nullable:
            return
        if tag is not None:
            if not isinstance(value, dict):
                raise _Mismatch(f"is {_kind(value)}, not an object")
            if value.get(tag) not in by_tag:
                exc = _Mismatch(f"is {value.get(tag)!r}, not one of {', '.join(map(repr, by_tag))}")
                exc.path.append(f".{tag}")
                raise exc
            by_tag[value[tag]](value)
            return
        errors = []
        for option_check in checks:
            try:
                option_check(value)
                return
            except _Mismatch as exc:
                errors.append(exc)
        raise errors[0]

    return run


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
