"""The lens and the hover state a module's status from one function (module_status.py), on
hand-built snapshots: no server, no worker, milliseconds. The end-to-end cases are
test_hover_lens.py's."""

from __future__ import annotations

import pytest

from exportlens.check.plan import Placement
from exportlens.discovery import discovery_of
from exportlens.lsp.codelens import lenses
from exportlens.lsp.hover import STALE, hover_text
from exportlens.lsp.session import Snapshot

from .snapshots import HEAD_LINE, NET_LINE, entry, finding, snapshot


def lens_status(snap: Snapshot, line: int) -> str:
    titles = [lens.command.title for lens in lenses(snap) if lens.range.start.line == line and lens.command]
    return titles[0]  # the status; then Export, Show graph


def hover_status(snap: Snapshot, line: int) -> str:
    text = hover_text(snap, line)
    assert text is not None
    return text.split("\n\n")[0].split(" — ", 1)[1]


STATES = {
    "done": ({"results": {"Net": entry()}}, "✓ exports · 1 ops · 0.10 s"),
    "stale": ({"results": {"Net": entry(key="old")}}, "✓ exports · 1 ops · 0.10 s (stale)"),
    "cached": ({"results": {"Net": entry(cached=True)}}, "✓ exports · 1 ops · 0.10 s (cached, re-checking)"),
    "running": ({"running": frozenset({"Net"}), "results": {"Net": entry()}}, "⧗ exporting…"),
    # the job's first refusal is known, its later passes still run: said, not a bare spinner
    "running, found so far": (
        {"running": frozenset({"Net"}), "results": {"Net": entry(findings=[finding(NET_LINE)], early=True)}},
        "⧗ exporting… · so far: ✗ 1 export issue",
    ),
    "cancelled": ({"cancelled": frozenset({"Net"})}, "export cancelled"),
    "not yet": ({}, "not exported yet"),
    "untrusted": ({"trusted": False}, "not exported (untrusted workspace)"),
}


@pytest.mark.parametrize("state", list(STATES))
def test_hover_and_lens_say_the_same_status(state: str) -> None:
    changes, expected = STATES[state]
    snap = snapshot(**changes)
    assert lens_status(snap, NET_LINE) == expected
    assert hover_status(snap, NET_LINE) == expected


def test_a_module_without_inputs_and_a_stale_hover() -> None:
    snap = snapshot(results={"Net": entry(key="old")})
    assert lens_status(snap, HEAD_LINE) == hover_status(snap, HEAD_LINE) == "no example inputs"
    assert STALE in (hover_text(snap, NET_LINE) or "")
    assert STALE not in (hover_text(snapshot(results={"Net": entry()}), NET_LINE) or "")


def test_a_module_checked_by_another_files_export_call() -> None:
    snap = snapshot(placement=Placement(sites={"Head": "/w/scripts/export.py"}))
    assert lens_status(snap, HEAD_LINE) == hover_status(snap, HEAD_LINE) == "not exported yet"
    assert "Checked by the export call in `export.py`." in (hover_text(snap, HEAD_LINE) or "")


def test_a_view_holds_the_modules_route_and_state() -> None:
    snap = snapshot(
        placement=Placement(sites={"Head": "/w/scripts/export.py"}),
        results={"Net": entry(key="old", cached=True)},
        running=frozenset({"Head"}),
    )
    net, head = (snap.view(t) for t in discovery_of(snap.document).subjects if t.name in ("Net", "Head"))
    assert (net.route.through, net.stale, net.cached, net.running) == ("own", True, True, False)
    assert (head.route.through, head.route.path, head.running, head.entry) == (
        "site",
        "/w/scripts/export.py",
        True,
        None,
    )
