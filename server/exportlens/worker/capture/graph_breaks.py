"""Which dynamo graph break an exception is, from what the running torch provides (in the child).

torch names graph breaks by `gb_type` and by a registry id (`gb0007`), both listed in
`torch/_dynamo/graph_break_registry.json`, which ships inside torch (2.10 onwards here).  The id is
the stable key: a type's wording may change between versions, its id does not.  What each version
gives differs:
- 2.13+: `Unsupported.gb_type`, and the id in the message's documentation link;
- 2.10: no `gb_type` attribute; the message starts with the type and carries the link;
- 2.14+: fake-tensor failures (`TorchRuntimeError`) wrap a `FakeTensorObservedException` and keep
  only the link: the type comes from the registry.
So: the attribute on the exception or its chain, else the message's link, else the message's first
line if the registry knows it; the missing half of (type, id) is looked up in the registry.
"""

from __future__ import annotations

import functools
import json
import os
import re
from typing import Any

_LINK = re.compile(r"/gb/(gb\d+)\.html")
CHAIN_DEPTH = 6


@functools.lru_cache(maxsize=1)
def entries() -> dict[str, list[dict[str, Any]]]:
    """gb id ("gb0007") -> the running torch's registry entries (type, explanation, hints); {} if none."""
    try:
        import torch._dynamo

        path = os.path.join(os.path.dirname(torch._dynamo.__file__), "graph_break_registry.json")
        with open(path, encoding="utf-8") as handle:
            raw = json.load(handle)
    except (ImportError, OSError, ValueError):
        return {}
    return {
        key.lower(): [entry for entry in listed if isinstance(entry, dict)]
        for key, listed in raw.items()
        if isinstance(listed, list)
    }


@functools.lru_cache(maxsize=1)
def registry() -> dict[str, list[str]]:
    """gb id ("gb0007") -> the gb_types the running torch registers under it; {} if none shipped."""
    return {key: [str(entry.get("Gb_type", "")) for entry in listed] for key, listed in entries().items()}


@functools.lru_cache(maxsize=1)
def _ids_by_type() -> dict[str, str]:
    found: dict[str, str] = {}
    for gb_id, types in registry().items():
        for gb_type in types:
            found.setdefault(gb_type, gb_id)
    return found


def id_of(gb_type: str) -> str | None:
    """The registry id of a graph-break type, as the running torch names it; None if unknown."""
    return _ids_by_type().get(gb_type)


def causes(exc: BaseException, depth: int = CHAIN_DEPTH) -> list[BaseException]:
    """The exception, then its causes/contexts (a wrapper first, what it wraps after)."""
    out: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(out) < depth and all(current is not e for e in out):
        out.append(current)
        current = current.__cause__ or current.__context__
    return out


def _is_dynamo(exc: BaseException) -> bool:
    return any(c.__name__ == "TorchDynamoException" for c in type(exc).__mro__)


def _first_line(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001 - a user exception's __str__ may fail
        return ""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def graph_break(exc: BaseException, message: str) -> tuple[str | None, str | None]:
    """(gb_type, gb_id) of the graph break behind `exc`; either may be unknown."""
    chain = causes(exc)
    gb_type = next((str(t) for e in chain if (t := getattr(e, "gb_type", None))), None)
    link = _LINK.search(message)
    gb_id = link.group(1) if link else None
    if gb_type is None and gb_id is None:
        # 2.10 prints the type as the message's first line (also of a wrapped Unsupported).
        known = _ids_by_type()
        gb_type = next((line for e in chain if _is_dynamo(e) and (line := _first_line(e)) in known), None)
    if gb_type is None and gb_id is not None:
        types = registry().get(gb_id) or []
        gb_type = types[0] if types else None
    if gb_id is None and gb_type is not None:
        gb_id = _ids_by_type().get(gb_type)
    return gb_type or None, gb_id or None
