"""Each code's section of docs/codes.md, as the file has it: SARIF's rule help (code scanning shows
it beside each alert) and the documentation link of a finding without one of torch's own.

docs/codes.md is in the package in a wheel (`exportlens/docs/`, setup.py copies it there) and
beside it in a checkout and in the .vsix (`docs/` at the top): either opens offline.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]  # .../exportlens
HEADING = re.compile(r"^## (\S+)\s*$")
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
RELATIVE_MD = re.compile(r"\]\((?![a-z]+:)([^)#]+\.md)(?:#[^)]*)?\)")  # [text](devices.md#anchor)


def docs_file() -> Path | None:
    """docs/codes.md of this installation, or None (then findings link only to torch's pages)."""
    for docs in (PACKAGE / "docs" / "codes.md", PACKAGE.parents[1] / "docs" / "codes.md"):
        if docs.is_file():
            return docs
    return None


@functools.cache
def sections() -> dict[str, str]:
    """`## <code>` heading → the markdown under it, up to the next heading of that level."""
    docs = docs_file()
    if docs is None:
        return {}
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    fenced = False
    for line in docs.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        heading = None if fenced else HEADING.match(line)
        if heading:
            current = found.setdefault(heading.group(1), [])
        elif not fenced and line.startswith("## "):
            current = None  # a section that is no code's ("How the line is found")
        elif current is not None:
            current.append(line)
    return {code: "\n".join(lines).strip() for code, lines in found.items()}


def markdown(code: str) -> str | None:
    return sections().get(code)


def plain(code: str) -> str | None:
    """The section with its links reduced to their text: SARIF's `help.text`."""
    text = markdown(code)
    return None if text is None else LINK.sub(r"\1", text)


def linked_docs(start: Path) -> list[Path]:
    """`start` and every document its relative links lead to, transitively: what a finding's
    documentation link can reach, which every package ships beside it (setup.py, the .vsix)."""
    found: list[Path] = []
    todo = [start.resolve()]
    while todo:
        doc = todo.pop()
        if doc in found:
            continue
        found.append(doc)
        for target in RELATIVE_MD.findall(doc.read_text(encoding="utf-8")):
            todo.append((doc.parent / target).resolve())
    return sorted(found)
