"""What a buffer shows (publishing.py's `shown`), on hand-built snapshots: a module's findings
while its key is the text's, older ones only as stale while the file does not parse, restored
ones as cached, nothing for a skipped file, the user's ignore comments applied; a notebook's
diagnostics split into its cells (cell_positions.py)."""

from __future__ import annotations

from lsprotocol import types

from exportlens.lsp.cell_positions import by_cell
from exportlens.lsp.diagnostics import to_diagnostic
from exportlens.lsp.publishing import shown
from exportlens.notebook import Cell, notebook_document

from .snapshots import NET_LINE, SOURCE, entry, finding, snapshot

LINE = NET_LINE + 2  # `return x * 2`


def test_current_stale_and_cached_findings() -> None:
    current = snapshot(results={"Net": entry(findings=[finding(LINE)])})
    assert [f.code for f in shown(current, current.keys, stale=False)[0]] == ["data-dependent-branch"]
    older = snapshot(results={"Net": entry(key="old", findings=[finding(LINE)])})
    assert shown(older, older.keys, stale=False) == ([], [], [])
    assert [f.code for f in shown(older, older.keys, stale=True)[1]] == ["data-dependent-branch"]
    restored = snapshot(results={"Net": entry(findings=[finding(LINE)], cached=True)})
    now, _, cached = shown(restored, restored.keys, stale=False)
    assert now == [] and [f.code for f in cached] == ["data-dependent-branch"]


def test_none_for_a_skipped_file_and_none_of_keys_left_out() -> None:
    snap = snapshot(results={"Net": entry(findings=[finding(LINE)])}, skipped="it matches exclude 'w/*'")
    assert shown(snap, snap.keys, stale=True) == ([], [], [])
    kept = snapshot(results={"Net": entry(findings=[finding(LINE)])})
    assert shown(kept, {}, stale=False) == ([], [], [])  # `{}`: the static findings only


def test_a_stale_finding_whose_lines_are_gone_is_dropped() -> None:
    gone = finding(200)
    snap = snapshot(results={"Net": entry(key="old", findings=[gone, finding(LINE)])})
    assert [f.range.start.line for f in shown(snap, snap.keys, stale=True)[1]] == [LINE]


def test_an_ignore_comment_hides_its_line() -> None:
    source = SOURCE.replace("return x * 2", "return x * 2  # exportlens: ignore[data-dependent-branch]")
    snap = snapshot(source, results={"Net": entry(findings=[finding(LINE)])})
    assert shown(snap, snap.keys, stale=False)[0] == []


def test_a_notebooks_diagnostics_go_to_their_cells() -> None:
    cells = [Cell(0, "import torch\n", "cell:0"), Cell(1, "x = 1\ny = 2\n", "cell:1")]
    doc = notebook_document("/w/nb.ipynb", cells, 1, "file:///w/nb.ipynb")
    where = types.Range(start=types.Position(line=2, character=0), end=types.Position(line=2, character=5))
    diagnostic = types.Diagnostic(range=where, message="here")
    split = by_cell(doc, [diagnostic])
    assert list(split) == ["cell:0", "cell:1"] and split["cell:0"] == []
    (moved,) = split["cell:1"]
    assert (moved.range.start.line, moved.range.end.character) == (1, 5)
    assert to_diagnostic(finding(LINE)).range.start.line == LINE
