"""Which installed library a frame is in, and its version; where a library built an output.

A failure caused inside a library (transformers, timm) lands on the user's line with the library's
line as related information. When the advice depends on the library's version (whether its cache
object can be exported at all changed between transformers releases), the message names the
version installed: read from the package's `*.dist-info/METADATA` beside it, without importing it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import replace
from pathlib import Path

from ..worker.wire.records import FailureRecord, Frame
from .kind import Kind

_SITE = re.compile(r"^(?P<site>.*/(?:site|dist)-packages)/(?P<top>[^/]+)")


@functools.lru_cache(maxsize=256)
def installed(path: str) -> tuple[str, str] | None:
    """(name, version) of the installed distribution whose code `path` is, else None."""
    match = _SITE.match(path)
    if match is None:
        return None
    site, top = Path(match["site"]), match["top"].removesuffix(".py")
    wanted = _normalized(top)
    try:
        infos = sorted(site.glob("*.dist-info"))
    except OSError:
        return None
    for info in infos:
        name = info.name.removesuffix(".dist-info").rsplit("-", 1)[0]
        if _normalized(name) == wanted or top in _top_level(info):
            return _metadata(info)
    return None


def created_site(record: FailureRecord) -> Frame | None:
    """The frame that built the output torch could not flatten (the worker's eager pass saw it)."""
    created = list(record.get("created_at") or [])
    return created[-1].copy() if created else None


def with_version(kind: Kind, frame: Frame) -> Kind:
    """`kind` saying which library, at which version, built what it names."""
    found = installed(str(frame.get("path", "")))
    if found is None or not kind.detail:
        return kind
    name, version = found
    return replace(kind, detail=f"{kind.detail}, from {name} {version}")


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _top_level(info: Path) -> set[str]:
    try:
        return set((info / "top_level.txt").read_text(encoding="utf-8").split())
    except OSError:
        return set()


def _metadata(info: Path) -> tuple[str, str] | None:
    try:
        text = (info / "METADATA").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    fields = dict(re.findall(r"^(Name|Version): *(.+?) *$", text, re.MULTILINE))
    return (fields["Name"], fields["Version"]) if "Name" in fields and "Version" in fields else None
