"""`exportlens.quantize = "xnnpack"` through the real worker with the pinned `executorch` and `torchao`
(docs/targets.md, "Quantized"): torchao's pt2e flow with the XNNPACK quantizer before the lowering, the
int8 `.pte` run by ExecuTorch's runtime against the FLOAT eager model.

MobileNetV2's inverted-residual blocks (tests/lowerings/test_executorch_realcode.py: modelled on
torchvision's `torchvision/models/mobilenetv2.py`, BSD-3-Clause; tiny config, random init) go whole to
XNNPACK quantized, within int8's tolerance; a difference of two nearly equal Linear layers loses its
numbers in int8 (the float tolerance would flag every int8 program; int8's own flags this one); a
`cumsum` stays portable and its warning says the program is the quantized one."""

from __future__ import annotations

from pathlib import Path

from exportlens.check import CheckOptions, check_file
from exportlens.engine import Engine
from exportlens.findings import FileResult
from exportlens.worker.lowering.quantize import TOLERANCE
from tests.conftest import line_of, only
from tests.lowerings.test_executorch_realcode import MOBILENET_V2_BLOCKS

# Two Linear layers whose weights differ by 1 %: their difference is 1 % of either output, below
# what int8's 256 levels of each output resolve (a residual that cancels, quantized per tensor).
DIFFERENCE = """
    import torch
    from torch import nn


    class Difference(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(8, 8)
            self.b = nn.Linear(8, 8)
            with torch.no_grad():
                self.b.weight.copy_(self.a.weight * 1.01)
                self.b.bias.copy_(self.a.bias)

        def forward(self, x):
            return self.b(x) - self.a(x)


    torch.manual_seed(0)
    torch.export.export(Difference().eval(), (torch.randn(3, 8),))
"""

CUMSUM = """
    import torch
    from torch.export import Dim

    class Running(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(8, 32)
            self.fc2 = torch.nn.Linear(32, 4)

        def forward(self, x):
            y = torch.relu(self.fc1(x))
            y = torch.cumsum(y, 1)
            return self.fc2(y)

    torch.manual_seed(0)
    batch = Dim("batch", max=64)
    torch.export.export(Running().eval(), (torch.randn(3, 8),), dynamic_shapes=({0: batch},))
"""


async def _check(engine: Engine, path: str, quantize: str = "xnnpack") -> FileResult:
    options = CheckOptions(
        roots=[str(Path(path).parent)], lowerings=("export", "executorch"), quantize=quantize
    )
    return await check_file(engine, path, None, options)


def _executorch(result: FileResult, module: str) -> dict:  # type: ignore[type-arg]
    (found,) = [m for m in result.modules if m.name == module]
    (lowering,) = [t for t in found.lowerings if t["target"] == "executorch"]
    return lowering


async def test_mobilenet_v2_blocks_quantized_delegate_whole_within_int8s_tolerance(
    engine: Engine, write
) -> None:
    path = write("mobilenet_v2_blocks.py", MOBILENET_V2_BLOCKS)
    result = await _check(engine, path)
    assert result.diagnostics == []
    lowering = _executorch(result, "Blocks")
    assert lowering["ok"] is True
    facts = lowering["facts"]
    assert facts["quantized"] == "xnnpack"
    assert facts["portable_ops"] == [] and facts["delegated_subgraphs"] == 1
    # quantize / dequantize nodes join the float program's 19 op nodes, all inside the delegate
    delegated, total = map(int, facts["delegated"].removesuffix(" nodes").split("/"))
    assert delegated == total > 19
    assert 0 < facts["quantized_max_abs_error"] and 0 < facts["quantized_max_rel_error"] <= TOLERANCE
    assert facts["numeric_checks"] == ["the example inputs"]


async def test_a_difference_int8_cannot_resolve_is_a_quantized_error_on_the_module(
    engine: Engine, write
) -> None:
    path = write("difference.py", DIFFERENCE)
    float_result = await _check(engine, path, quantize="none")
    assert float_result.diagnostics == []  # the float program: within the float tolerance
    assert "quantized" not in _executorch(float_result, "Difference")["facts"]
    result = await _check(engine, path)
    warned = only(result, "executorch-quantized-error")
    assert warned.severity == "warning" and warned.range.start.line == line_of(path, "class Difference")
    facts = _executorch(result, "Difference")["facts"]
    delegated, total = map(int, facts["delegated"].removesuffix(" nodes").split("/"))
    assert facts["quantized"] == "xnnpack" and delegated == total  # delegated whole: the numbers are int8's
    assert facts["quantized_max_rel_error"] > TOLERANCE
    assert warned.message.startswith(
        "ExecuTorch: the quantized (int8, XNNPACK) `.pte`'s outputs differ from the float model on the "
        f"example inputs: max abs error {facts['quantized_max_abs_error']:.3g}, "
    )
    assert "(tolerance 10% for int8)" in warned.message
    assert [d.code for d in result.diagnostics] == ["executorch-quantized-error"]  # no float mismatch


async def test_a_line_left_portable_says_the_program_is_the_quantized_one(engine: Engine, write) -> None:
    path = write("running.py", CUMSUM)
    result = await _check(engine, path)
    portable = only(result, "executorch-not-delegated")
    assert portable.range.start.line == line_of(path, "torch.cumsum(")
    assert portable.message.startswith(
        "ExecuTorch: `aten.cumsum.default` is not delegated in the quantized program (XNNPACK has no support"
    )
    # a running sum of int8 values adds their errors up (5-7 % of the range here): not asserted either way
    assert [d.code for d in result.diagnostics if d.code != "executorch-quantized-error"] == [
        "executorch-not-delegated"
    ]
    facts = _executorch(result, "Running")["facts"]
    assert facts["portable_ops"] == ["aten.cumsum.default"] and facts["delegated_subgraphs"] == 2
    # both input sets ran on the int8 `.pte`, the dynamic batch's second size too
    assert facts["numeric_checks"] == ["the example inputs", "size 4 of the dynamic dim 0 of `x`"]
    assert facts["quantized_max_abs_error"] > 0 and facts["quantized_max_rel_error"] > 0


FLOAT64 = """
    import torch

    class Precise(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 4)

        def forward(self, x):
            return torch.relu(self.fc(x))

    torch.export.export(Precise().double().eval(), (torch.randn(2, 4, dtype=torch.float64),))
"""


async def test_torchaos_refusal_of_a_float64_layer_is_an_error_on_the_line_using_it(
    engine: Engine, write
) -> None:
    path = write("precise.py", FLOAT64)
    result = await _check(engine, path)
    refused = only(result, "executorch-quantize-error")
    # convert_pt2e's quantize step of the weight has no line of its own: the Linear's call is its user
    assert refused.severity == "error" and refused.range.start.line == line_of(path, "torch.relu(self.fc(x))")
    assert refused.message.startswith(
        "ExecuTorch: torchao's `convert_pt2e` refused the program at "
        "`quantized_decomposed.quantize_per_tensor.default` (AssertionError: Expecting input to have dtype "
        "torch.float32, but got dtype: torch.float64). XNNPACK's quantizer takes float32"
    )
    assert [d.code for d in result.diagnostics] == ["executorch-quantize-error"]
    lowering = _executorch(result, "Precise")
    assert lowering["ok"] is False and "facts" not in lowering  # nothing lowered
