"""Diagnostics through the real server: right lines, typed changes, never a stale version."""

from __future__ import annotations

from lsprotocol import types

from .conftest import Session, line_of
from .models import GUARDED, MLP

CLEAN = MLP


async def test_open_publishes_on_the_failing_line(server: Session) -> None:
    diagnostics = await server.open("guarded_open.py", GUARDED)
    (diag,) = [d for d in diagnostics if d.severity == types.DiagnosticSeverity.Error]
    assert diag.code == "data-dependent-branch"
    assert diag.range.start.line == line_of(GUARDED, "if (y > 0).any()")
    assert diag.source == "exportlens"
    assert diag.data["module"] == "MLP" and diag.data["mode"] == "non-strict"
    assert diag.related_information


async def test_typed_change_introduces_then_removes_a_failure(server: Session) -> None:
    assert await server.open("typed.py", CLEAN) == []
    uri = (server.root / "typed.py").resolve().as_uri()
    version = server.change(uri, GUARDED)
    diagnostics = await server.wait_checked(uri, version)
    assert [d.code for d in diagnostics] == ["data-dependent-branch"]
    assert diagnostics[0].range.start.line == line_of(GUARDED, "if (y > 0).any()")
    version = server.change(uri, CLEAN)
    assert await server.wait_checked(uri, version) == []


async def test_rapid_changes_never_publish_a_stale_version(server: Session) -> None:
    await server.open("rapid.py", CLEAN)
    uri = (server.root / "rapid.py").resolve().as_uri()
    mark = len(server.record.published)
    texts = {}
    for n in range(5):
        text = GUARDED if n % 2 == 0 else CLEAN
        texts[server.change(uri, text)] = text
    last = max(texts)
    diagnostics = await server.wait_checked(uri, last)
    assert texts[last] is GUARDED and [d.code for d in diagnostics] == ["data-dependent-branch"]
    versions = [p.version for p in server.record.published[mark:] if p.uri == uri]
    assert versions == sorted(versions)  # never an older version after a newer one
    for params in server.record.published[mark:]:
        if params.uri == uri:  # what was published matches that version's text
            failing = any(d.code == "data-dependent-branch" for d in params.diagnostics)
            assert failing == (texts[params.version] is GUARDED) or not params.diagnostics


async def test_close_clears_diagnostics(server: Session) -> None:
    await server.open("closing.py", GUARDED)
    uri = (server.root / "closing.py").resolve().as_uri()
    mark = len(server.record.published)
    server.close(uri)
    await server.until(lambda: any(p.uri == uri for p in server.record.published[mark:]))
    assert [list(p.diagnostics) for p in server.record.published[mark:] if p.uri == uri][-1] == []


TWO_BRANCHES = """
    import torch


    class TwoBranches(torch.nn.Module):
        def example_inputs(self):
            return (torch.ones(3),)

        def forward(self, x):
            if (x > 0).any():
                x = x + 1
            if (x > 5).all():
                x = x * 2
            return x
"""


async def test_the_first_failure_is_published_before_the_others(server: Session) -> None:
    mark = len(server.record.published)
    diagnostics = await server.open("two_branches.py", TWO_BRANCHES)
    uri = (server.root / "two_branches.py").resolve().as_uri()
    first, second = line_of(TWO_BRANCHES, "if (x > 0).any()"), line_of(TWO_BRANCHES, "if (x > 5).all()")
    assert sorted(d.range.start.line for d in diagnostics) == [first, second]
    published = [p for p in server.record.published[mark:] if p.uri == uri and p.version == 1]
    assert [[d.range.start.line for d in p.diagnostics] for p in published] == [[first], [first, second]]


SLOW_SECOND = """
    import time

    import torch


    class SlowSecond(torch.nn.Module):
        def example_inputs(self):
            return (torch.ones(3),)

        def forward(self, x):
            if (x > 0).any():
                x = x + 1
            time.sleep(3)  # each pass after the first refusal takes this long
            if (x > 5).all():
                x = x * 2
            return x
"""


async def test_the_lens_says_what_is_found_while_the_check_still_runs(server: Session) -> None:
    """Slow but progressing (issue 43): the first refusal is on the lens, not a bare spinner."""
    uri, text = server.write("slow_second.py", SLOW_SECOND)
    mark = len(server.record.checked)
    published = len(server.record.published)
    server.send_open(uri, text)
    await server.until(
        lambda: any(p.uri == uri and p.diagnostics for p in server.record.published[published:])
    )
    assert not any(c["uri"] == uri for c in server.record.checked[mark:])  # still running
    assert (await server.lenses(uri))[0] == "⧗ exporting… · so far: ✗ 1 export issue"
    await server.until(lambda: any(c["uri"] == uri for c in server.record.checked[mark:]))
    assert (await server.lenses(uri))[0] == "✗ 2 export issues"
