"""The `executorch` target in the editor, through the real server (issue 41): the sort line an error
(no kernel in ExecuTorch's runtime), the cumsum line a warning (portable kernel), the lens naming the
target, the hover which ops run where and the graph panel each node's place; a fully delegated
model clean, with delegated / total nodes and the `.pte` size on hover."""

from __future__ import annotations

import textwrap

from tests.lowerings.test_executorch_worker import SORTED

from .conftest import Session, line_of

SMALL = """
    import torch


    class Small(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(8, 4)

        def forward(self, x):
            return torch.relu(self.fc(x))


    if __name__ == "__main__":
        torch.export.export(Small().eval(), (torch.randn(2, 8),))
"""


async def test_the_editor_shows_the_executorch_findings_and_facts(server: Session) -> None:
    await server.set_settings(targets=["export", "executorch"])
    try:
        source = textwrap.dedent(SORTED).lstrip("\n")
        diagnostics = await server.open("et_ranked.py", source)
        found = sorted((d.code, d.range.start.line) for d in diagnostics)
        assert found == [
            ("executorch-missing-kernel", line_of(source, "torch.sort(")),
            ("executorch-not-delegated", line_of(source, "torch.cumsum(")),
        ], found
        (missing,) = [d for d in diagnostics if d.code == "executorch-missing-kernel"]
        assert missing.message.startswith("ExecuTorch: no kernel for `aten::sort.values`")
        ranked = (server.root / "et_ranked.py").resolve().as_uri()
        lens = (await server.lenses(ranked))[0]
        assert lens.startswith("✓ exports · ") and "ExecuTorch" in lens, lens
        # which ops run where: on hover, and node by node for the graph panel's outlines
        text = await server.hover(ranked, line_of(source, "class Ranked"), 8)
        assert text is not None and "backends: XnnpackBackend 2" in text, text
        assert "portable ops: aten.cumsum.default, aten.sort.default" in text, text
        view = await server.command("exportlens.graphView", ranked, "Ranked")
        placement = view["results"][0]["placement"]
        assert placement == {
            "linear": "XnnpackBackend",
            "relu": "XnnpackBackend",
            "cumsum": "portable",
            "sort": "missing kernel",
        }, placement
        ids = {n["id"] for n in view["results"][0]["view"]["nodes"]}
        assert set(placement) <= ids, (placement, ids)
        assert await server.open("et_small.py", SMALL) == []
        uri = (server.root / "et_small.py").resolve().as_uri()
        text = await server.hover(uri, line_of(SMALL, "class Small"), 8)
        assert text is not None and "ExecuTorch ✓ · delegated 2/2 nodes · " in text, text
        assert " · pte " in text and " KB" in text, text
    finally:
        await server.set_settings(targets=["export"])
