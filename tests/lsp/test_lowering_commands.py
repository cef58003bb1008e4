"""The on-demand target commands through the real server (lsp/lowering_commands.py): "Save as ONNX"
writes a model onnx reads back; "Compile with AOTInductor" publishes its refusal on the user's line."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import onnx

from tests.lowerings import int_op

from .conftest import Session, line_of
from .models import DYNAMIC

INT_OP = int_op("el_lsp")


async def test_save_onnx_writes_a_model_onnx_reads(server: Session, tmp_path: Path) -> None:
    await server.open("onnx_cmd.py", DYNAMIC)
    uri = (server.root / "onnx_cmd.py").resolve().as_uri()
    target = tmp_path / "mlp"  # the command adds the .onnx
    result = await server.command("exportlens.saveOnnx", uri, "MLP", str(target))
    assert result["status"] == "exported" and result["saved"], result
    assert result["path"] == str(target) + ".onnx"
    model = onnx.load(result["path"])
    onnx.checker.check_model(model)
    ops = {n.op_type for n in model.graph.node}
    assert "Relu" in ops and ops & {"Gemm", "MatMul"}, ops
    # the batch dim stayed dynamic (DYNAMIC declares Dim("batch", max=64))
    assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param


async def test_compile_aoti_publishes_its_refusal_on_the_line(server: Session) -> None:
    diagnostics = await server.open("aoti_cmd.py", INT_OP)
    assert [d.code for d in diagnostics] == []  # a normal check never compiles
    uri = (server.root / "aoti_cmd.py").resolve().as_uri()
    result = await server.command("exportlens.compileAoti", uri, "Counted")
    assert result["status"] == "exported" and result["ok"] is False, result
    line = line_of(INT_OP, "n = count(x)")
    (refused,) = [f for f in result["findings"] if f["code"] == "aoti-compile-error"]
    assert refused["range"]["start"]["line"] == line

    def refusals() -> list[Any]:
        return [d for d in server.client.diagnostics.get(uri, []) if d.code == "aoti-compile-error"]

    await server.until(lambda: bool(refusals()))
    (published,) = refusals()
    assert published.range.start.line == line and published.message.startswith("AOTInductor: cannot compile")


async def test_cancel_aoti_kills_the_compile_and_the_worker_goes_on(server: Session) -> None:
    await server.open("aoti_cancel.py", DYNAMIC)
    uri = (server.root / "aoti_cancel.py").resolve().as_uri()
    worker = (await server.command("exportlens.status"))["workerPid"]
    compiling = asyncio.ensure_future(server.command("exportlens.compileAoti", uri, "MLP"))
    await asyncio.sleep(4.0)  # inside the C++ compile (tens of seconds)
    assert not compiling.done()
    assert await server.command("exportlens.cancelAoti", uri, "MLP") == {"cancelled": True}
    result = await asyncio.wait_for(compiling, 30)
    assert result["status"] == "cancelled" and result["ok"] is False, result
    assert await server.command("exportlens.cancelAoti", uri, "MLP") == {"cancelled": False}
    assert (await server.command("exportlens.status"))["workerPid"] == worker
    after = await server.command("exportlens.exportModule", uri, {"line": 3, "character": 4})
    assert after["status"] == "exported"
