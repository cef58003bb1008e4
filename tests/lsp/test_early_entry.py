"""A job's first failure is shown while the rest of its check runs (lsp/state.py `early_entry`):
with both tracers each one's is added to the other's, a culprit said once."""

from __future__ import annotations

import dataclasses

from exportlens.lsp.state import early_entry

from .snapshots import NET_LINE, entry, finding


def test_the_other_tracers_first_failure_is_added_not_swapped_in() -> None:
    first = entry(findings=[finding(NET_LINE)], early=True)
    strict = dataclasses.replace(first.results[0], mode="strict")
    same, other = finding(NET_LINE), finding(NET_LINE + 1, code="untraceable-call")
    both = early_entry(first, "k", strict, [same, other], 1, None)
    assert [r.mode for r in both.results] == ["non-strict", "strict"]
    assert [(f.range.start.line, f.code) for f in both.findings] == [
        (NET_LINE, "data-dependent-branch"),
        (NET_LINE + 1, "untraceable-call"),
    ]
    assert both.early and both.errors == 2


def test_a_finished_or_older_entry_is_replaced() -> None:
    result = entry().results[0]
    for before in (
        entry(findings=[finding(NET_LINE)]),
        dataclasses.replace(entry(findings=[finding(NET_LINE)], early=True), version=0),
    ):
        fresh = early_entry(before, "k", result, [finding(NET_LINE + 2)], 1, None)
        assert [f.range.start.line for f in fresh.findings] == [NET_LINE + 2] and len(fresh.results) == 1
