"""The `aoti` target through the real worker (docs/targets.md): a small model compiles and its
package runs as eager does; a custom op inductor cannot compile is refused on its line; a
cancelled compile kills the job's child only. The verdicts are torch's own (AOTInductor, g++)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from exportlens.check import CheckOptions, check_file
from exportlens.engine import Engine
from exportlens.findings import FileResult
from tests.conftest import line_of, only
from tests.lowerings import MLP, int_op
from tests.worker_torch import WorkerTorch

INT_OP = int_op("el_aoti")


async def _aoti(engine: Engine, path: str) -> FileResult:
    options = CheckOptions(roots=[str(Path(path).parent)], lowerings=("export", "aoti"), on_demand=True)
    return await check_file(engine, path, None, options)


async def test_a_small_model_compiles_and_its_package_runs_as_eager(
    engine: Engine, write, worker_torch: WorkerTorch
) -> None:
    path = write("mlp.py", MLP)
    result = await _aoti(engine, path)
    assert result.diagnostics == [], [(d.code, d.message) for d in result.diagnostics]
    (module,) = result.modules
    (aoti,) = module.lowerings
    assert aoti["target"] == "aoti" and aoti["ok"] is True
    facts = aoti["facts"]
    assert facts["package_bytes"] > 4 * (8 * 32 + 32 * 4) and facts["compile_seconds"] > 0
    assert facts["checked"] == ["the example inputs", "size 4 of the dynamic dim 0 of `x`"]
    # The package, loaded again outside ExportLens, gives eager's numbers at a third batch size.
    compared = worker_torch.run(
        "import torch, runpy\n"
        "import torch._inductor.codecache  # torch 2.10's aoti_load_package uses it unimported\n"
        f"scope = runpy.run_path({path!r}, run_name='mlp')\n"
        "torch.manual_seed(0)\n"
        "model = scope['MLP']().eval()\n"
        f"runner = torch._inductor.aoti_load_package({facts['package_path']!r})\n"
        "x = torch.randn(7, 8)\n"
        "got, want = runner(x), model(x)\n"
        "result = [list(got.shape), torch.allclose(got, want, rtol=1e-5, atol=1e-5)]\n"
    )
    assert compared == [[7, 4], True]
    os.remove(facts["package_path"])  # under the temp folder, named after this test's tmp_path


async def test_a_custom_op_inductor_cannot_compile_is_refused_on_its_line(engine: Engine, write) -> None:
    path = write("counted.py", INT_OP)
    result = await _aoti(engine, path)
    refused = only(result, "aoti-compile-error")
    assert refused.range.start.line == line_of(path, "n = count(x)"), refused.message
    assert refused.severity == "error"
    assert refused.message.startswith("AOTInductor: cannot compile the program at `el_aoti.count.default`")
    assert "Unsupported return type" in refused.message
    assert result.modules[0].lowerings[0]["ok"] is False


async def test_a_cancelled_compile_kills_its_child_and_the_worker_goes_on(engine: Engine, write) -> None:
    path = write("mlp.py", MLP)
    worker = engine.worker_pid
    running = asyncio.create_task(_aoti(engine, path))
    await asyncio.sleep(4.0)  # inside the compile (it takes tens of seconds)
    running.cancel()
    try:
        await running
    except asyncio.CancelledError:
        pass
    assert engine.worker_pid == worker
    after = await check_file(engine, path, None, CheckOptions(roots=[str(Path(path).parent)]))
    assert after.diagnostics == [] and after.modules[0].status == "exported"
    assert engine.worker_pid == worker
