"""A dataclass returned from forward: the finding on the `return`, a proven registration fix.

The shape of DETR-style heads and of `transformers`' `ModelOutput`s: the model returns its own
`@dataclass` of tensors, which torch.export cannot flatten until it is registered.
"""

from __future__ import annotations

import torch

from tests.fixes.conftest import apply_edit, load, pick, proven, resolve
from tests.lsp.conftest import Session, line_of

DETECTOR = """
    from dataclasses import dataclass

    import torch


    @dataclass
    class DetectorOutput:
        boxes: torch.Tensor
        scores: torch.Tensor


    class Detector(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.head = torch.nn.Linear(8, 5)

        def forward(self, x):
            out = self.head(x)
            return DetectorOutput(boxes=out[:, :4], scores=out[:, 4].sigmoid())


    if __name__ == "__main__":
        torch.export.export(Detector(), (torch.randn(2, 8),))
"""


async def test_dataclass_output_on_its_return_with_a_proven_registration(server: Session) -> None:
    before = await server.open("fx_output.py", DETECTOR)
    uri, text = server.write("fx_output.py", DETECTOR)
    (finding,) = before
    assert finding.code == "unflattenable-output"
    assert finding.range.start.line == line_of(DETECTOR, "return DetectorOutput(")
    fix = pick(await proven(server, uri, finding.range.start.line), "Register `DetectorOutput` with torch")
    assert fix.title.endswith("(exports; matches eager)"), fix.title
    new = apply_edit(text, (await resolve(server, fix)).edit, uri, 1)
    assert "torch.export.register_dataclass(DetectorOutput)" in new
    assert await server.wait_checked(uri, server.change(uri, new)) == []
    namespace = load(new.replace('if __name__ == "__main__":', "if False:"), "detector")
    model, x = namespace["Detector"](), torch.randn(3, 8)
    exported = torch.export.export(model, (x,)).module()(x)
    assert torch.allclose(exported.boxes, model(x).boxes)
