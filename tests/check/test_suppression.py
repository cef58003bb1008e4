"""What the user configured about findings: ignore comments, `ignore`, `severity` (suppression.py)."""

from __future__ import annotations

from exportlens.check.suppression import as_configured
from exportlens.config.settings import Settings
from exportlens.document import Document
from exportlens.findings import Finding, Range

SOURCE = """class Net:
    def forward(self, x):
        if x.sum() > 0:  # exportlens: ignore[data-dependent-branch]
            return x
        if x.max() > 1:  # exportlens: ignore[no-such-code, data-dependent-branch]
            return x
        if x.min() > 1:  # exportlens: ignore
            return x
        if x.mean() > 1:  # exportlens: ignore[side-effect-baked]
            return x
        return -x
"""


def branch(line: int, code: str = "data-dependent-branch", severity: str = "error") -> Finding:
    return Finding("/p/m.py", Range.of(line, 11, line, 22), severity, code, "msg")  # type: ignore[arg-type]


def test_a_comment_silences_the_codes_it_names_on_its_line_only() -> None:
    doc = Document("/p/m.py", SOURCE)
    (shown,) = as_configured(doc, Settings(), [branch(2), branch(4), branch(6), branch(8), branch(10)])
    assert [(f.range.start.line, f.code) for f in shown] == [
        (4, "unknown-ignore-code"),
        (8, "data-dependent-branch"),  # the comment names another code
        (10, "data-dependent-branch"),  # no comment
    ]
    unknown = shown[0]
    assert unknown.severity == "warning" and "`no-such-code`" in unknown.message
    assert SOURCE.splitlines()[4][unknown.range.start.character :].startswith("# exportlens: ignore[")


def test_a_finding_of_another_file_is_not_silenced_by_this_files_comment() -> None:
    other = Finding("/p/other.py", Range.of(2, 0, 2, 1), "error", "data-dependent-branch", "msg")
    (shown,) = as_configured(Document("/p/m.py", SOURCE), Settings(), [other])
    assert [f.code for f in shown] == ["data-dependent-branch", "unknown-ignore-code"]


def test_ignore_and_severity_settings() -> None:
    doc = Document("/p/m.py", "x = 1\n")
    baked = Finding("/p/m.py", Range.of(0, 0, 0, 1), "warning", "side-effect-baked", "msg")
    settings = Settings(ignore=("data-dependent-branch",), severity=(("side-effect-baked", "information"),))
    ((shown,),) = as_configured(doc, settings, [branch(0), baked])
    assert (shown.code, shown.severity) == ("side-effect-baked", "information")
    off = Settings(severity=(("side-effect-baked", "off"),))
    assert as_configured(doc, off, [baked]) == [[]]


def test_the_lists_shown_beside_are_configured_without_the_comments_notes() -> None:
    """The editor's stale and cached findings: silenced alike, the unknown code said once."""
    doc = Document("/p/m.py", SOURCE)
    shown, stale = as_configured(doc, Settings(), [branch(10)], [branch(2), branch(8)])
    assert [(f.range.start.line, f.code) for f in shown] == [
        (4, "unknown-ignore-code"),
        (10, "data-dependent-branch"),
    ]
    assert [(f.range.start.line, f.code) for f in stale] == [(8, "data-dependent-branch")]
