"""The registry of every diagnostic code, and looking codes up: an unknown code is a bug.

The codes are declared in `refusals.py` (what torch refused), `outcomes.py` (no export verdict:
the code raised, ExportLens's own) and `baked.py` (exported, but wrong),
`lowerings.py` (exported, but does not lower where it ships); `model.Code` says what
each declares.  A Finding with a code missing here cannot be made (`registered`); `url_for` gives
a finding's documentation link (torch's graph-break page, else the code's docs/codes.md anchor,
else the code's torch page).
"""

from __future__ import annotations

from . import baked, compiled, lowerings, outcomes, refusals
from .model import Code
from .outcomes import FIX_ONLY
from .sections import docs_file

__all__ = ["CODES", "DOCS", "FIX_ONLY", "Code", "UnknownCodeError", "registered", "url_for"]


def _merged(*tables: dict[str, Code]) -> dict[str, Code]:
    merged: dict[str, Code] = {}
    for table in tables:
        twice = set(merged) & set(table)
        if twice:
            raise ValueError(f"codes declared twice: {sorted(twice)}")
        merged.update(table)
    return merged


CODES = _merged(refusals.CODES, outcomes.CODES, baked.CODES, lowerings.CODES, compiled.CODES)
GB_SITE = "https://meta-pytorch.github.io/compile-graph-break-site/gb/{}.html"


def _docs_base() -> str | None:
    """docs/codes.md as a link (sections.py says where it is), or None: the project has no
    public address to link to instead."""
    docs = docs_file()
    return docs.as_uri() + "#" if docs else None


DOCS = _docs_base()


class UnknownCodeError(ValueError):
    """A finding was made with a code this table does not declare (a typo, or a code not added here)."""


def registered(code: str) -> Code:
    """The registry's entry for `code`; an unknown code is a bug, never silently another code."""
    entry = CODES.get(code)
    if entry is None:
        raise UnknownCodeError(
            f"{code!r} is not a registered diagnostic code: declare it in CODES "
            f"(server/exportlens/codes/) and document it under `## {code}` in docs/codes.md"
        )
    return entry


def url_for(code: str, gb_id: str | None = None) -> str | None:
    """A finding's one link, the same in the editor (codeDescription, hover), the CLI's text, JSON
    and SARIF (they all read `Finding.url`, made here): torch's page for this very graph break,
    else the code's section of docs/codes.md (which names torch's pages), else, without the docs,
    the code's torch page; None when there is none (never a made-up address)."""
    if gb_id:
        return GB_SITE.format(gb_id)
    entry = registered(code)
    return DOCS + entry.anchor if DOCS else entry.url
