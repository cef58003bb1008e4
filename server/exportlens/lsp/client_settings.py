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
        if not spec.accepts(value):
            log.warning("ignoring setting exportlens.%s = %r", name, value)
            continue
        changes[spec.field] = stored(spec, value)
    return dataclasses.replace(base, **changes)


def explicit(raw: Any) -> frozenset[str] | None:
    """The fields the user set themselves (the client's `explicit`: VS Code's `inspect()`), which
    beat `pyproject.toml`; None: the client does not say, so all it sends count."""
    if not isinstance(raw, dict) or not isinstance(raw.get("explicit"), list):
        return None
    return frozenset(BY_NAME[n].field for n in raw["explicit"] if isinstance(n, str) and n in BY_NAME)


def sent(raw: Any) -> frozenset[str]:
    """The fields of valid settings in `raw`."""
    if not isinstance(raw, dict):
        return frozenset()
    return frozenset(BY_NAME[n].field for n in raw if n in BY_NAME)


def to_json(settings: Settings) -> dict[str, Any]:
    return {spec.name: _plain(spec, getattr(settings, spec.field)) for spec in SPECS}


def _plain(spec: Spec, value: Any) -> Any:
    if spec.type == "object":
        return dict(value)  # severity: code -> level
    return list(value) if isinstance(value, tuple) else value
