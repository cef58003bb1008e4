"""The `core-aten` and `onnx` targets through the real worker (docs/targets.md): each refusal on the
user's line, named by its target; a dynamic dim checked at a second size; onnx missing said as
information. The custom ops are real torch.library ops; ONNX's verdicts are torch 2.13's own."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

from exportlens.check import CheckOptions, check_file
from exportlens.engine import Engine, EngineOptions
from exportlens.findings import FileResult
from tests.conftest import line_of, only
from tests.custom_ops import scale_op
from tests.lowerings import MLP, needs_onnx, python_without
from tests.paths import ROOT

NET = """

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        y = torch.relu(self.fc(x))
        z = scale(y)  # the custom op
        return z.sum(-1)

torch.export.export(Net().eval(), (torch.randn(3, 4),))
"""


def custom_op(namespace: str, decomposition: str = "") -> str:
    return scale_op(namespace) + textwrap.dedent(decomposition) + NET


# Registered in torch's global table, which torch.onnx decomposes with: eager runs x * 2.
WRONG = """
    @torch._decomp.register_decomposition(torch.ops.{ns}.scale.default)
    def _wrong(x):
        return x * 3
"""


async def _check(engine: Engine, path: str, *targets: str) -> FileResult:
    options = CheckOptions(roots=[str(Path(path).parent)], lowerings=("export", *targets))
    return await check_file(engine, path, None, options)


@needs_onnx
async def test_a_custom_op_without_translation_is_refused_by_onnx_and_core_aten_on_its_line(
    engine: Engine, write
) -> None:
    path = write("custom.py", custom_op("el_none"))
    result = await _check(engine, path, "core-aten", "onnx")
    line = line_of(path, "z = scale(y)")
    onnx = only(result, "onnx-no-translation")
    assert onnx.range.start.line == line and onnx.severity == "error"
    assert onnx.message.startswith("ONNX: no ONNX translation nor decomposition for `el_none.scale.default`")
    assert onnx.fix == {"target": "onnx", "node": "scale", "op": "el_none.scale.default"}
    core = only(result, "core-aten-op")
    assert core.range.start.line == line and core.message.startswith("Core ATen: `el_none.scale.default`")
    (module,) = result.modules
    assert [t["target"] for t in module.lowerings] == ["core-aten", "onnx"]
    assert [t["ok"] for t in module.lowerings] == [False, False]


@needs_onnx
async def test_a_wrong_decomposition_exports_but_differs_and_the_line_is_found(engine: Engine, write) -> None:
    path = write("wrong.py", custom_op("el_wrong", WRONG.format(ns="el_wrong")))
    result = await _check(engine, path, "onnx")
    mismatch = only(result, "onnx-numeric-mismatch")
    assert mismatch.severity == "warning"
    assert mismatch.range.start.line == line_of(path, "z = scale(y)"), mismatch.message
    assert "max abs error" in mismatch.message and "max rel error 0.5" in mismatch.message
    assert not [d for d in result.diagnostics if d.severity == "error"]


@needs_onnx
async def test_a_dynamic_dim_is_kept_through_onnx_and_checked_at_a_second_size(engine: Engine, write) -> None:
    path = write("mlp.py", MLP)
    result = await _check(engine, path, "core-aten", "onnx")
    assert result.diagnostics == []
    (module,) = result.modules
    onnx = next(t for t in module.lowerings if t["target"] == "onnx")
    assert onnx["ok"] is True
    facts = onnx["facts"]
    assert facts["opset"] >= 18 and facts["ops"] >= 3 and facts["model_bytes"] > 4 * (8 * 32 + 32 * 4)
    assert facts["numeric_checks"] == ["the example inputs", "size 4 of the dynamic dim 0 of `x`"]


async def test_a_custom_op_is_outside_core_aten_on_every_torch(engine: Engine, write) -> None:
    path = write("custom.py", custom_op("el_core"))
    result = await _check(engine, path, "core-aten")
    core = only(result, "core-aten-op")
    assert core.range.start.line == line_of(path, "z = scale(y)") and core.severity == "error"
    assert "ExecuTorch's verifier refuses it (not in Core ATen opset)" in core.message
    assert [d.code for d in result.diagnostics] == ["core-aten-op"]


async def test_export_only_runs_no_lowering(engine: Engine, write) -> None:
    path = write("mlp.py", MLP)
    result = await _check(engine, path)
    assert result.modules[0].lowerings == [] and result.diagnostics == []


def torch_without_onnx(folder: Path) -> str:
    """This interpreter without onnx, onnxscript and onnxruntime: a user's torch without them."""
    return python_without(folder, "onnx")


async def test_without_onnx_installed_the_target_says_so_as_information(write, tmp_path: Path) -> None:
    python = os.environ.get("EXPORTLENS_TEST_PYTHON") or torch_without_onnx(tmp_path)
    engine = Engine(EngineOptions(python=python, timeout=60.0))
    try:
        path = write("mlp.py", MLP)
        result = await _check(engine, path, "onnx")
    finally:
        await engine.close()
    info = only(result, "target-not-run")
    assert info.severity == "information"
    assert info.message == (
        "ONNX: not checked: `onnx` and `onnxscript` are not installed in the checked interpreter: "
        "`pip install onnx onnxscript`"
    )
    assert [d.code for d in result.diagnostics] == ["target-not-run"]


ON_GPU = """
    import torch

    class OnGpu(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(8, 4)

        def forward(self, x):
            return torch.relu(self.fc(x))

    torch.export.export(OnGpu().cuda().eval(), (torch.randn(2, 8).cuda(),))
"""


@needs_onnx
async def test_fake_device_code_exports_to_onnx_and_says_its_numbers_were_not_compared(
    engine: Engine, write
) -> None:
    path = write("gpu.py", ON_GPU)
    result = await _check(engine, path, "onnx")
    info = only(result, "target-not-run")
    assert info.message.startswith(
        "ONNX: exported to ONNX; its numbers were not compared with eager: the model"
    )
    assert "as fake tensors on a device" in info.message
    assert [d.code for d in result.diagnostics] == ["target-not-run"]
    (called,) = [m for m in result.modules if m.inputs == "export-call"]  # the file's own call, on "cuda"
    assert called.lowerings[0]["ok"] is True and called.lowerings[0]["facts"]["numeric_checks"] == []


@needs_onnx
async def test_an_aten_op_without_translation_is_refused_on_its_line(engine: Engine, write) -> None:
    """A plain torch op, as the README's picture shows: onnxscript has no `kthvalue`, and it is
    no Core ATen op either (no `torch.Tag.core`, no decomposition), so both targets refuse it."""
    fixture = ROOT / "extension/test/fixtures-onnx/median_pool.py"
    path = write("median_pool.py", fixture.read_text())
    result = await _check(engine, path, "core-aten", "onnx")
    refused = only(result, "onnx-no-translation")
    assert refused.range.start.line == line_of(path, "torch.kthvalue(")
    assert "`aten.kthvalue.default`" in refused.message, refused.message
    core = only(result, "core-aten-op")
    assert core.range.start.line == refused.range.start.line
    assert core.message.startswith("Core ATen: `aten.kthvalue.default` is an ATen op outside"), core.message
    assert sorted(d.code for d in result.diagnostics) == ["core-aten-op", "onnx-no-translation"]
