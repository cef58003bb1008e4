"""Hover on a squiggled range (finding_hover.py), on hand-built snapshots: the finding's message,
why, fix and links; nothing off its range; a class line's hover keeps its module text."""

from __future__ import annotations

from exportlens.lsp.finding_hover import finding_text

from .snapshots import NET_LINE, entry, finding, snapshot

LINE = NET_LINE + 2  # `return x * 2`; finding() spans its columns 8-20


def test_the_finding_under_the_cursor_explains_itself() -> None:
    snap = snapshot(results={"Net": entry(findings=[finding(LINE)])})
    text = finding_text(snap, LINE, 10)
    assert text is not None
    assert text.startswith("**ExportLens** · `data-dependent-branch` (error): data-dependent-branch here")
    assert "*Why:*" in text and "*Fix:*" in text and "torch.cond" in text
    assert "](" in text  # the code's own section


def test_nothing_off_the_range_nor_for_an_old_result() -> None:
    snap = snapshot(results={"Net": entry(findings=[finding(LINE)])})
    assert finding_text(snap, LINE, 30) is None
    assert finding_text(snap, LINE + 1, 10) is None
    stale = snapshot(results={"Net": entry(key="old", findings=[finding(LINE)])})
    assert finding_text(stale, LINE, 10) is None  # of another text: not what is shown
