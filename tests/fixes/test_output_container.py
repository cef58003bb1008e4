"""A dataclass returned from forward: the finding on the `return`, a proven registration fix.

The shape of DETR-style heads and of `transformers`' `ModelOutput`s: the model returns its own
`@dataclass` of tensors, which torch.export cannot flatten until it is registered.
"""

from __future__ import annotations

from tests.fixes.conftest import apply_edit, pick, proven, resolve
from tests.lsp.conftest import Session, line_of
from tests.worker_torch import WorkerTorch, exec_source

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


async def test_dataclass_output_on_its_return_with_a_proven_registration(
    server: Session, worker_torch: WorkerTorch
) -> None:
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
    same = worker_torch.run(  # with the worker's torch: the registered output re-exports
        exec_source(new, "detector")
        + "import torch\n"
        + "model, x = ns_detector['Detector'](), torch.randn(3, 8)\n"
        + "exported = torch.export.export(model, (x,)).module()(x)\n"
        + "result = bool(torch.allclose(exported.boxes, model(x).boxes))\n"
    )
    assert same is True
