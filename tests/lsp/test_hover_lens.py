"""Hover (from the cache: summary, per-line ops, stale) and code lenses."""

from __future__ import annotations

from lsprotocol import types

from .conftest import Session, line_of
from .models import DYNAMIC, GUARDED, NO_INPUTS, SLOW


async def test_hover_on_class_shows_the_export_summary(server: Session) -> None:
    await server.open("dyn.py", DYNAMIC)
    uri = (server.root / "dyn.py").resolve().as_uri()
    text = await server.hover(uri, line_of(DYNAMIC, "class MLP"), 7)
    assert text is not None
    assert "✓ exports" in text and "ops" in text
    assert "`fc.weight`" in text and "`fc.bias`" in text  # parameters
    assert "User inputs (1): `x`" in text
    assert "`x.shape[0] ∈ [2, 64]`" in text
    assert "aten.linear" in text
    assert "Stale" not in text
    forward = await server.hover(uri, line_of(DYNAMIC, "def forward"), 9)
    assert forward is not None and "aten.linear" in forward


async def test_hover_on_a_forward_line_lists_its_aten_ops(server: Session) -> None:
    uri = (server.root / "dyn.py").resolve().as_uri()
    text = await server.hover(uri, line_of(DYNAMIC, "y = self.fc(x)"), 10)
    assert text is not None and "aten.linear" in text and "relu" not in text
    text = await server.hover(uri, line_of(DYNAMIC, "return torch.relu(y)"), 10)
    assert text is not None and "aten.relu" in text
    assert await server.hover(uri, line_of(DYNAMIC, "super().__init__()"), 10) is None


async def test_hover_is_marked_stale_while_the_source_changed(server: Session) -> None:
    uri = (server.root / "dyn.py").resolve().as_uri()
    await server.set_settings(runOn="save")  # so nothing re-checks the edit behind our back
    try:
        line = line_of(DYNAMIC, "y = self.fc(x)")
        server.edit(uri, line, len("        y = self.fc(x)"), len("        y = self.fc(x)"), " * 2")
        text = await server.hover(uri, line_of(DYNAMIC, "class MLP"), 7)
        assert text is not None and "Stale" in text and "aten.linear" in text
        lenses = await server.lenses(uri)
        assert any(t.startswith("✓ exports") and t.endswith("(stale)") for t in lenses)
    finally:
        await server.set_settings(runOn="type")


async def test_code_lenses(server: Session) -> None:
    await server.open("lens_ok.py", DYNAMIC.replace("class MLP", "class Good"))
    ok = await server.lenses((server.root / "lens_ok.py").resolve().as_uri())
    assert ok[0].startswith("✓ exports · 2 ops · ") and ok[0].endswith(" s")
    assert ok[1:] == ["Export", "Show graph"]
    await server.open("lens_bad.py", GUARDED)
    assert (await server.lenses((server.root / "lens_bad.py").resolve().as_uri()))[:2] == [
        "✗ 1 export issue",
        "Export",
    ]
    diagnostics = await server.open("lens_none.py", NO_INPUTS)
    assert [d.code for d in diagnostics] == ["no-example-inputs"]
    assert (await server.lenses((server.root / "lens_none.py").resolve().as_uri()))[0] == "no example inputs"


async def test_progress_lens_and_cancellation(server: Session) -> None:
    uri, text = server.write("slow.py", SLOW)
    mark = len(server.record.checked)
    tokens_before = set(server.client.progress_reports)
    server.send_open(uri, text)
    # the export outlives the progress delay: a cancellable progress begins
    await server.until(
        lambda: any(
            isinstance(v, types.WorkDoneProgressBegin)
            for t, values in server.client.progress_reports.items()
            if t not in tokens_before
            for v in values
        )
    )
    (token,) = [t for t in server.client.progress_reports if t not in tokens_before]
    begin = server.client.progress_reports[token][0]
    assert isinstance(begin, types.WorkDoneProgressBegin) and begin.cancellable
    assert (await server.lenses(uri))[0] == "⧗ exporting…"
    hover = await server.hover(uri, line_of(SLOW, "class Slow"), 7)  # answers now, from the cache
    assert hover is not None and "exporting" in hover
    server.client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    await server.until(lambda: any(c["uri"] == uri for c in server.record.checked[mark:]))
    assert [c["cancelled"] for c in server.record.checked[mark:] if c["uri"] == uri] == [True]
    await server.until(
        lambda: isinstance(server.client.progress_reports[token][-1], types.WorkDoneProgressEnd)
    )
    assert (await server.lenses(uri))[0] == "export cancelled"
    # the worker is free again
    assert await server.open("after_cancel.py", DYNAMIC) == []


DEEP = """
    import torch


    class Deep(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = torch.nn.Sequential(*[torch.nn.Linear(8, 8) for _ in range(24)])

        def example_inputs(self):
            return (torch.randn(2, 8),)

        def forward(self, x):
            return self.layers(x)
"""


async def test_long_graphs_are_truncated_with_a_link(server: Session) -> None:
    await server.open("deep.py", DEEP)
    uri = (server.root / "deep.py").resolve().as_uri()
    text = await server.hover(uri, line_of(DEEP, "class Deep"), 7)
    assert text is not None and "[Open the whole graph](command:exportlens.showGraph?" in text
    whole = await server.command("exportlens.graph", uri, "Deep")
    assert whole["code"].count("aten.linear") == 24 and text.count("aten.linear") < 24


async def test_hover_on_the_squiggled_line_explains_the_finding(server: Session) -> None:
    """What a plain LSP client (Neovim's `K`) shows on the failing line: the finding itself."""
    diagnostics = await server.open("hover_bad.py", GUARDED)
    uri = (server.root / "hover_bad.py").resolve().as_uri()
    (branch,) = [d for d in diagnostics if d.code == "data-dependent-branch"]
    at = branch.range.start
    text = await server.hover(uri, at.line, at.character + 1)
    assert text is not None and "`data-dependent-branch` (error)" in text, text
    assert branch.message in text and "*Fix:*" in text
    assert await server.hover(uri, line_of(GUARDED, "return torch.relu(y)"), 12) is None
