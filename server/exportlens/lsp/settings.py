"""Typed configuration, section `exportlens`, applied live without a restart.

Sources, later wins: defaults, `initializationOptions.settings`, the
`workspace/configuration` pull (redone on every `didChangeConfiguration`).

| name            | values                              | default      |
|-----------------|-------------------------------------|--------------|
| mode            | "non-strict" / "strict" / "both" / null | null: the export call's `strict=` (as the CLI) |
| runOn           | "type" / "save"                     | "type"       |
| debounceMs      | int ≥ 0                             | 300          |
| timeoutSeconds  | float > 0, per export               | 30           |
| memoryLimitMb   | int or null                         | null         |
| python          | interpreter for the worker or null  | null (this one); a change restarts the engine |
| allFailures     | bool                                | true         |
| trusted         | bool; false runs no user code       | true         |
| exportSites     | bool; look for export calls in other workspace files | true |
| metaAboveMb     | number ≥ 0: models with more weights export on the meta device; 0 = never | 1024 |
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("exportlens.lsp")

MODES = ("non-strict", "strict", "both")
RUN_ON = ("type", "save")


@dataclass(frozen=True)
class Settings:
    mode: str | None = None
    run_on: str = "type"
    debounce_ms: int = 300
    timeout_seconds: float = 30.0
    memory_limit_mb: int | None = None
    python: str | None = None
    all_failures: bool = True
    trusted: bool = True
    export_sites: bool = True
    meta_above_mb: float = 1024.0

    def results_key(self) -> tuple[Any, ...]:
        """What an export's result depends on besides the source: a change drops the cache."""
        return (self.mode, self.python, self.all_failures, self.trusted, self.meta_above_mb)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# camelCase wire name -> (field, validator)
_FIELDS: dict[str, tuple[str, Any]] = {
    "mode": ("mode", lambda v: v is None or v in MODES),
    "runOn": ("run_on", lambda v: v in RUN_ON),
    "debounceMs": ("debounce_ms", lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0),
    "timeoutSeconds": ("timeout_seconds", lambda v: isinstance(v, (int, float)) and v > 0),
    "memoryLimitMb": ("memory_limit_mb", lambda v: v is None or (isinstance(v, int) and v > 0)),
    "python": ("python", lambda v: v is None or isinstance(v, str)),
    "allFailures": ("all_failures", lambda v: isinstance(v, bool)),
    "trusted": ("trusted", lambda v: isinstance(v, bool)),
    "exportSites": ("export_sites", lambda v: isinstance(v, bool)),
    "metaAboveMb": (
        "meta_above_mb",
        lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0,
    ),
}


def merge(base: Settings, raw: Any) -> Settings:
    """`base` with the valid entries of the client's `raw` dict; bad values are logged and ignored."""
    if not isinstance(raw, dict):
        return base
    changes: dict[str, Any] = {}
    for name, value in raw.items():
        if name not in _FIELDS:
            continue
        field_name, valid = _FIELDS[name]
        if value == "" and field_name in ("python", "mode"):
            value = None  # an emptied text box means "unset"
        if not valid(value):
            log.warning("ignoring setting exportlens.%s = %r", name, value)
            continue
        changes[field_name] = float(value) if field_name == "timeout_seconds" else value
    return dataclasses.replace(base, **changes)


def to_json(settings: Settings) -> dict[str, Any]:
    by_field = {field: name for name, (field, _) in _FIELDS.items()}
    return {by_field[k]: v for k, v in dataclasses.asdict(settings).items()}
