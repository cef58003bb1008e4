"""A model file whose module is exported only by `scripts/export.py` (check/routes.py): the check,
its export fix's proof, Save .pt2, Save ONNX, the graph panel and Compile with AOTInductor go
through that script's call, with its inputs (`Gate` needs its width: the model file alone has no
inputs to guess from). Through the real server and worker."""

from __future__ import annotations

from pathlib import Path

import onnx

from tests.fixes.conftest import pick, proven
from tests.worker_torch import WorkerTorch

from .conftest import Session, line_of

MODEL = """import torch
from torch import nn


class Gate(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        h = self.fc(x)
        if h.sum() > 0:
            return h * 2
        return h - 1
"""
SCRIPT = """import torch
from routed_gate import Gate

if __name__ == "__main__":
    program = torch.export.export(Gate(6), (torch.randn(3, 6),))
"""
CLEAN_SCRIPT = SCRIPT.replace("routed_gate", "routed_clean")


async def test_an_export_fix_is_proven_through_the_script(server: Session) -> None:
    server.write("scripts/export_gate.py", SCRIPT)
    found = await server.open("routed_gate.py", MODEL)
    uri = (server.root / "routed_gate.py").resolve().as_uri()
    line = line_of(MODEL, "if h.sum() > 0:")
    assert [(d.code, d.range.start.line) for d in found] == [("data-dependent-branch", line)], found
    cond = pick(await proven(server, uri, line), "Rewrite as torch.cond")
    # proven on the script's inputs (the model file alone has none): both branches compared
    assert "not checked" not in cond.title and "(exports; matches eager" in cond.title, cond.title


async def test_save_and_compile_use_the_scripts_inputs(
    server: Session, tmp_path: Path, worker_torch: WorkerTorch
) -> None:
    clean = MODEL.replace("if h.sum() > 0:\n            return h * 2\n        ", "")
    server.write("scripts/export_clean.py", CLEAN_SCRIPT)
    assert await server.open("routed_clean.py", clean) == []
    uri = (server.root / "routed_clean.py").resolve().as_uri()
    saved = await server.command("exportlens.savePt2", uri, "Gate", str(tmp_path / "gate.pt2"))
    assert saved["saved"], saved
    shape = worker_torch.run(
        "import torch\n"
        f"program = torch.export.load({saved['path']!r})\n"
        "result = [list(n.meta['val'].shape) for n in program.graph.nodes if n.op == 'placeholder'][-1]"
    )
    assert shape == [3, 6], shape  # the script's inputs
    onnx_saved = await server.command("exportlens.saveOnnx", uri, "Gate", str(tmp_path / "gate"))
    assert onnx_saved["saved"], onnx_saved
    dims = onnx.load(onnx_saved["path"]).graph.input[0].type.tensor_type.shape.dim
    assert [d.dim_value for d in dims] == [3, 6]
    view = await server.command("exportlens.graphView", uri, "Gate")
    assert [r["status"] for r in view["results"]] == ["exported"] and view["results"][0]["view"], view
    compiled = await server.command("exportlens.compileAoti", uri, "Gate")
    assert compiled["status"] == "exported" and compiled["ok"], compiled
