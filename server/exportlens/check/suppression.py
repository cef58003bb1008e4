"""What the user configured about findings, the last passes of a check, the CLI's and the editor's:
`# exportlens: ignore[code, ...]` comments (bare `# exportlens: ignore`: every code) at the end
of a finding's line, the `ignore` setting, and each code's configured `severity` ("off" drops it).

An unknown code in such a comment silences nothing and is a finding on the comment
(`unknown-ignore-code`). These passes run after the results store (a comment or a severity
changes what is shown, never what an export found).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from ..codes import CODES, url_for
from ..config.settings import Settings
from ..document import Document
from ..findings import Finding, Range
from ..textpos import utf16_len

COMMENT = re.compile(r"#\s*exportlens:\s*ignore(?:\[(?P<codes>[^\]]*)\])?\s*$")
ALL = "*"


@dataclass(frozen=True)
class IgnoreComment:
    line: int  # 0-based
    start: int  # UTF-16 column of the `#`
    end: int
    codes: frozenset[str]  # ALL: every code
    unknown: tuple[str, ...]


@functools.lru_cache(maxsize=32)
def comments(text: str) -> dict[int, IgnoreComment]:
    """The file's ignore comments by 0-based line."""
    found: dict[int, IgnoreComment] = {}
    for number, line in enumerate(re.split(r"\r\n|\r|\n", text)):
        if "exportlens" not in line:
            continue
        match = COMMENT.search(line)
        if match is None:
            continue
        listed = match["codes"]
        names = [c.strip() for c in listed.split(",") if c.strip()] if listed is not None else [ALL]
        start = utf16_len(line[: match.start()])
        found[number] = IgnoreComment(
            number,
            start,
            start + utf16_len(match[0].rstrip()),
            frozenset(names),
            tuple(n for n in names if n != ALL and n not in CODES),
        )
    return found


def ignored_on_line(findings: list[Finding], doc: Document, settings: Settings) -> list[Finding]:
    """A finding on a line whose comment names its code (or all) is not shown."""
    marks = comments(doc.text)
    if not marks:
        return findings
    return [f for f in findings if not _silenced(f, doc, marks)]


def _silenced(finding: Finding, doc: Document, marks: dict[int, IgnoreComment]) -> bool:
    mark = marks.get(finding.range.start.line) if finding.path == doc.path else None
    return mark is not None and (ALL in mark.codes or finding.code in mark.codes)


def unknown_codes(findings: list[Finding], doc: Document, settings: Settings) -> list[Finding]:
    """Each comment's unknown codes: a warning on the comment."""
    said = []
    for mark in comments(doc.text).values():
        if mark.unknown:
            names = ", ".join(f"`{c}`" for c in mark.unknown)
            said.append(
                Finding(
                    doc.path,
                    Range.of(mark.line, mark.start, mark.line, mark.end),
                    "warning",
                    "unknown-ignore-code",
                    f"{names} is not an ExportLens code: this comment silences nothing for it "
                    "(the codes are in docs/codes.md)",
                    url=url_for("unknown-ignore-code"),
                )
            )
    return findings + said


def ignored_codes(findings: list[Finding], doc: Document, settings: Settings) -> list[Finding]:
    """The `ignore` setting: these codes are never shown."""
    if not settings.ignore:
        return findings
    return [f for f in findings if f.code not in settings.ignore]


def with_severity(findings: list[Finding], doc: Document, settings: Settings) -> list[Finding]:
    """The `severity` setting: a code's level instead of its own; "off" is not shown."""
    levels = dict(settings.severity)
    if not levels:
        return findings
    shown = []
    for finding in findings:
        level = levels.get(finding.code)
        if level is None:
            shown.append(finding)
        elif level != "off":
            shown.append(dataclasses.replace(finding, severity=level, configured=True))  # type: ignore[arg-type]
    return shown


ConfiguredPass = Callable[[list[Finding], Document, Settings], list[Finding]]
CONFIGURED_PASSES: tuple[ConfiguredPass, ...] = (ignored_on_line, unknown_codes, ignored_codes, with_severity)
