"""The client's settings -> `Settings` (config/settings.py), and back for the status command.

Sources, later wins: defaults, `initializationOptions.settings`, the `workspace/configuration`
pull (redone on every `didChangeConfiguration`).
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from ..config.settings import BY_NAME, SPECS, Settings

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
        if spec.type == "array":
            value = tuple(dict.fromkeys(value))
        changes[spec.field] = float(value) if spec.type == "number" else value
    return dataclasses.replace(base, **changes)


def to_json(settings: Settings) -> dict[str, Any]:
    return {spec.name: _plain(getattr(settings, spec.field)) for spec in SPECS}


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value
