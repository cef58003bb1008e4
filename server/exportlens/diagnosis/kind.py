"""A classified failure: its code, torch's gist for the message, fix data, where to point."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Kind:
    code: str
    detail: str = ""  # extra words for the message (torch's own gist)
    fix: dict[str, Any] = field(default_factory=dict)
    where: str = "frames"  # frames | anchor | guard | args | dynamic_shapes (of the export call)


def suggested_fixes(message: str) -> list[str]:
    """torch's "Suggested fixes:" block, one fix per line."""
    _, found, rest = message.partition("Suggested fixes:")
    if not found:
        return []
    fixes = []
    for line in rest.splitlines()[1:]:
        if not line.startswith("  ") or not line.strip():
            break
        fixes.append(line.strip())
    return fixes


def short(text: str, limit: int = 160) -> str:
    """The first sentence of torch's text, bounded: findings stay readable in a hover."""
    text = text.strip()
    sentence = re.split(r"(?<=[.!?])\s+(?=[A-Z])", text, maxsplit=1)[0]
    return sentence if len(sentence) <= limit else sentence[: limit - 1] + "…"


def first_line(message: str) -> str:
    lines = [ln.strip() for ln in message.splitlines() if ln.strip()]
    return lines[0] if lines else ""


def quoted_names(names: list[str]) -> str:
    """`h`; `h` and `w`; `a`, `b` and `c`."""
    quoted = [f"`{n}`" for n in names]
    return " and ".join([", ".join(quoted[:-1]), quoted[-1]]) if len(quoted) > 1 else "".join(quoted)
