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
from ..findings import Finding, Range, by_position
from ..spelling import did_you_mean
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


@dataclass(frozen=True)
class Configured:
    """What the user configured for one file, read once per publish or CLI result."""

    path: str
    marks: dict[int, IgnoreComment]  # the file's ignore comments by 0-based line
    ignore: frozenset[str]  # the `ignore` setting
    levels: dict[str, str]  # the `severity` setting

    @staticmethod
    def of(doc: Document, settings: Settings) -> Configured:
        return Configured(doc.path, comments(doc.text), frozenset(settings.ignore), dict(settings.severity))


def ignored_on_line(findings: list[Finding], said: Configured) -> list[Finding]:
    """A finding on a line whose comment names its code (or all) is not shown."""
    if not said.marks:
        return findings
    return [f for f in findings if not _silenced(f, said)]


def _silenced(finding: Finding, said: Configured) -> bool:
    mark = said.marks.get(finding.range.start.line) if finding.path == said.path else None
    return mark is not None and (ALL in mark.codes or finding.code in mark.codes)


def unknown_codes(findings: list[Finding], said: Configured) -> list[Finding]:
    """Each comment's unknown codes: a warning on the comment."""
    notes = []
    for mark in said.marks.values():
        if mark.unknown:
            names = ", ".join(f"`{c}`{did_you_mean(c, CODES)}" for c in mark.unknown)
            notes.append(
                Finding(
                    said.path,
                    Range.of(mark.line, mark.start, mark.line, mark.end),
                    "warning",
                    "unknown-ignore-code",
                    f"{names} is not an ExportLens code: this comment silences nothing for it "
                    "(the codes are in docs/codes.md)",
                    url=url_for("unknown-ignore-code"),
                )
            )
    return findings + notes


def ignored_codes(findings: list[Finding], said: Configured) -> list[Finding]:
    """The `ignore` setting: these codes are never shown."""
    if not said.ignore:
        return findings
    return [f for f in findings if f.code not in said.ignore]


def with_severity(findings: list[Finding], said: Configured) -> list[Finding]:
    """The `severity` setting: a code's level instead of its own; "off" is not shown."""
    if not said.levels:
        return findings
    shown = []
    for finding in findings:
        level = said.levels.get(finding.code)
        if level is None:
            shown.append(finding)
        elif level != "off":
            shown.append(dataclasses.replace(finding, severity=level, configured=True))  # type: ignore[arg-type]
    return shown


ConfiguredPass = Callable[[list[Finding], Configured], list[Finding]]
CONFIGURED_PASSES: tuple[ConfiguredPass, ...] = (ignored_on_line, unknown_codes, ignored_codes, with_severity)


def as_configured(
    doc: Document, settings: Settings, findings: list[Finding], *beside: list[Finding]
) -> list[list[Finding]]:
    """What is shown of a file's findings (the CLI's after its results store, the editor's when it
    publishes): `CONFIGURED_PASSES` in order, then by position; each list of `beside` (the
    editor's stale and cached findings, shown beside the current ones) the same, less what the
    file's comments say themselves (their unknown codes, said once with `findings`)."""
    said = Configured.of(doc, settings)
    shown = []
    for number, listed in enumerate((findings, *beside)):
        for step in CONFIGURED_PASSES:
            if number == 0 or step is not unknown_codes:
                listed = step(listed, said)
        shown.append(by_position(listed))
    return shown
