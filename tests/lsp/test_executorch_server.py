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


async def test_the_editor_shows_a_quantized_programs_error_against_the_float_model(server: Session) -> None:
    """`exportlens.quantize` `xnnpack`: int8's loss on a difference of two close layers is a warning on
    the class, and the hover says the program is quantized and how far off it is."""
    from tests.lowerings.test_executorch_quantized import DIFFERENCE

    await server.set_settings(targets=["export", "executorch"], quantize="xnnpack")
    try:
        source = textwrap.dedent(DIFFERENCE).lstrip("\n")
        diagnostics = await server.open("et_difference.py", source)
        assert [(d.code, d.range.start.line) for d in diagnostics] == [
            ("executorch-quantized-error", line_of(source, "class Difference"))
        ], diagnostics
        uri = (server.root / "et_difference.py").resolve().as_uri()
        text = await server.hover(uri, line_of(source, "class Difference"), 8)
        assert text is not None and "ExecuTorch ✓ · quantized (xnnpack, int8) · delegated " in text, text
        assert " · int8 error " in text and "% of the range" in text, text
        lens = (await server.lenses(uri))[0]
        assert lens.startswith("✓ exports · ") and lens.endswith(" · ExecuTorch int8"), lens
    finally:
        await server.set_settings(targets=["export"], quantize="none")
