"""Reopening a file shows the last session's results at once, marked cached, and the check that
follows replaces them (persist/, lsp/kept.py)."""

from __future__ import annotations

from .conftest import Session, line_of
from .models import GUARDED


async def test_reopen_shows_stored_results_then_rechecks(server: Session) -> None:
    first = await server.open("reopened.py", GUARDED)
    assert [d.code for d in first] == ["data-dependent-branch"]
    uri = (server.root / "reopened.py").resolve().as_uri()
    server.close(uri)
    mark = len(server.record.published)
    again = await server.open("reopened.py", GUARDED)
    published = [p for p in server.record.published[mark:] if p.uri == uri and p.diagnostics]
    restored = published[0].diagnostics
    assert [d.code for d in restored] == ["data-dependent-branch"]
    assert restored[0].data["cached"] is True and restored[0].message.startswith("(cached: re-checking) ")
    assert restored[0].range == first[0].range
    # the check that followed: the same finding, no longer marked
    assert [(d.code, d.range, d.message) for d in again] == [(d.code, d.range, d.message) for d in first]
    assert "cached" not in again[0].data
    assert again[0].range.start.line == line_of(GUARDED, "if (y > 0).any()")


async def test_an_edited_file_restores_only_unchanged_modules(server: Session) -> None:
    first = await server.open("reopened_edit.py", GUARDED)
    uri = (server.root / "reopened_edit.py").resolve().as_uri()
    server.close(uri)
    mark = len(server.record.published)
    edited = GUARDED.replace("return torch.relu(y)", "return torch.relu(y) * 2")
    again = await server.open("reopened_edit.py", edited)
    published = [p for p in server.record.published[mark:] if p.uri == uri]
    assert all(not (d.data or {}).get("cached") for p in published for d in p.diagnostics)
    assert [d.code for d in again] == [d.code for d in first]
