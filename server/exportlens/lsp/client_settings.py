"""The client's settings -> `Settings` (config/settings.py), and back for the status command.

Sources, later wins: defaults, `initializationOptions.settings`, the `workspace/configuration`
pull (redone on every `didChangeConfiguration`).
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from ..config.settings import BY_NAME, SPECS, Settings, Spec, stored

log = logging.getLogger("exportlens.lsp")


def merge(base: Settings, raw: Any) -> Settings:
    """`base` with the valid entries of the client's `raw` dict; bad values are logged and ignored."""
    if not isinstance(raw, dict):
        return base
    changes: dict[str, Any] = {}
    for name, value in raw.items():
        spec = BY_NAME.get(name)
        if spec is None:
            continue
        if value == "" and spec.nullable and spec.type == "string":
            value = None  # an emptied text box means "unset"
        if (why := spec.why_not(value)) is not None:  # says the code meant, for a misspelled one
            log.warning("ignoring setting exportlens.%s = %r: %s", name, value, why)
            continue
        changes[spec.field] = stored(spec, value)
    return dataclasses.replace(base, **changes)


def explicit(raw: Any) -> frozenset[str] | None:
    """The fields the user set themselves (the client's `explicit`: VS Code's `inspect()`), which
    beat `pyproject.toml`; None: the client does not say, so all it sends count."""
    if not isinstance(raw, dict) or not isinstance(raw.get("explicit"), list):
        return None
    return frozenset(BY_NAME[n].field for n in raw["explicit"] if isinstance(n, str) and n in BY_NAME)


def user_set(raw: Any, before: frozenset[str]) -> frozenset[str]:
    """The fields the user set after `raw`: the client's `explicit` when it says, else `before` with
    the settings `raw` gives a value (a client may send only what changed) less those it nulls."""
    said = explicit(raw)
    if said is not None:
        return said
    if not isinstance(raw, dict):
        return before
    named = {BY_NAME[n].field: v for n, v in raw.items() if n in BY_NAME}
    nulled = {f for f, v in named.items() if v is None}
    return (before - nulled) | (named.keys() - nulled)


def to_json(settings: Settings) -> dict[str, Any]:
    return {spec.name: _plain(spec, getattr(settings, spec.field)) for spec in SPECS}


def _plain(spec: Spec, value: Any) -> Any:
    if spec.type == "object":
        return dict(value)  # severity: code -> level
    return list(value) if isinstance(value, tuple) else value
