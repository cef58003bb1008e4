"""The `coreml` target through the real worker with the pinned `coremltools` (docs/targets.md):
`ct.convert(program.run_decompositions({}), minimum_deployment_target=ct.target.iOS17)` in the child.
Public model code converts clean; `torch.unique` (a translation that takes another form of the op)
and `torch.histc` (no translation) are refused on their lines with coremltools' own words. Not skipped
without coremltools: the dev extra pins it, so a missing one fails loudly.

MobileNetV2's inverted-residual blocks are tests/lowerings/test_executorch_realcode.py's (modelled on
torchvision's `torchvision/models/mobilenetv2.py`, BSD-3-Clause; 8 and 16 channels, random init), and so
is its text encoder on PyTorch's own `nn.TransformerEncoderLayer` (d=32, 2 heads)."""

from __future__ import annotations

from pathlib import Path

from exportlens.check import CheckOptions, check_file
from exportlens.engine import Engine
from exportlens.findings import FileResult
from tests.conftest import line_of, only
from tests.lowerings import not_installed_message
from tests.lowerings.test_executorch_realcode import ENCODER, MOBILENET_V2_BLOCKS

# Issue 41 item 5's model: a Linear, then an op Core ML refuses on its own line.
REFUSED = """
    import torch

    class Counted(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(8, 8)

        def forward(self, x):
            y = torch.relu(self.fc(x))
            return {op}

    torch.export.export(Counted().eval(), (torch.randn(2, 8),))
"""
UNIQUE = REFUSED.format(op="torch.unique(y)")
HISTC = REFUSED.format(op="torch.histc(y, bins=4)")


async def _check(engine: Engine, path: str) -> FileResult:
    options = CheckOptions(roots=[str(Path(path).parent)], lowerings=("export", "coreml"))
    return await check_file(engine, path, None, options)


def _coreml(result: FileResult, module: str) -> dict:  # type: ignore[type-arg]
    (found,) = [m for m in result.modules if m.name == module]
    (lowering,) = [t for t in found.lowerings if t["target"] == "coreml"]
    return lowering


async def test_mobilenet_v2_blocks_convert_clean_and_say_they_were_not_run(engine: Engine, write) -> None:
    path = write("mobilenet_v2_blocks.py", MOBILENET_V2_BLOCKS)
    result = await _check(engine, path)
    assert result.diagnostics == []
    lowering = _coreml(result, "Blocks")
    assert lowering["ok"] is True
    facts = lowering["facts"]
    assert facts["deployment_target"] == "iOS17" and facts["coremltools"] == "9.0"
    assert facts["numeric_check"] == "not run: Core ML runs models on macOS only"
    # the convolutions' weights (8*32 + 32*9 + 32*8 + ... in float16) are in the weights file
    assert facts["ops"] >= 10 and facts["spec_bytes"] > 1000 and facts["weights_bytes"] > 2 * 8 * 32
    assert 0 < lowering["seconds"] < 60


async def test_a_transformer_encoder_layer_converts_clean(engine: Engine, write) -> None:
    path = write("encoder.py", ENCODER)
    result = await _check(engine, path)
    assert result.diagnostics == []
    lowering = _coreml(result, "Encoder")
    # attention, layer norms, the embedding's gather: coremltools 9.0 translates every op
    assert lowering["ok"] is True and lowering["facts"]["ops"] > 20


async def test_unique_is_a_conversion_error_on_its_line_with_coremltools_words(engine: Engine, write) -> None:
    path = write("counted.py", UNIQUE)
    result = await _check(engine, path)
    refused = only(result, "coreml-conversion-error")
    assert refused.severity == "error" and refused.range.start.line == line_of(path, "torch.unique(")
    assert refused.message.startswith(
        "Core ML: `ct.convert` refused the program at `aten._unique2.default` (ValueError: node _unique2 "
        "(_unique2) got 1 input(s), expected [4])"
    ), refused.message
    assert "`@register_torch_op(override=True)`" in refused.message
    assert [d.code for d in result.diagnostics] == ["coreml-conversion-error"]
    lowering = _coreml(result, "Counted")
    assert lowering["ok"] is False and lowering["facts"] == {"coremltools": "9.0"}


async def test_an_op_without_a_translation_is_unsupported_on_its_line(engine: Engine, write) -> None:
    path = write("counted.py", HISTC)
    result = await _check(engine, path)
    refused = only(result, "coreml-unsupported-op")
    assert refused.severity == "error" and refused.range.start.line == line_of(path, "torch.histc(")
    assert refused.message.startswith(
        "Core ML: coremltools has no translation for `aten.histc.default` (NotImplementedError: "
        "Unsupported fx node histc, kind histc)"
    ), refused.message
    assert "`@register_torch_op`" in refused.message
    assert [d.code for d in result.diagnostics] == ["coreml-unsupported-op"]


async def test_without_coremltools_installed_the_target_says_so_as_information(write, tmp_path: Path) -> None:
    message = await not_installed_message(tmp_path, "coremltools", write("counted.py", UNIQUE), "coreml")
    assert message == (
        "Core ML: not checked: `coremltools` is not installed in the checked interpreter: "
        "`pip install coremltools`"
    )


async def test_fake_device_code_is_not_converted_and_says_why_as_information(engine: Engine, write) -> None:
    from tests.lowerings.test_lowerings_worker import ON_GPU

    path = write("gpu.py", ON_GPU)
    result = await _check(engine, path)
    info = only(result, "target-not-run")
    assert info.severity == "information"
    assert info.message.startswith(
        "Core ML: not converted to Core ML: the model was built as fake tensors on a device"
    ), info.message
    assert [d.code for d in result.diagnostics] == ["target-not-run"]


async def test_an_int_input_is_said_as_an_input_core_ml_cannot_take(engine: Engine, write) -> None:
    from tests.lowerings.test_executorch_worker import INT_AND_KWARG

    path = write("scaled.py", INT_AND_KWARG)
    result = await _check(engine, path)
    refused = only(result, "coreml-conversion-error")
    assert refused.range.start.line == line_of(path, "class Scaled(")
    assert refused.message == (
        "Core ML: the input `n` is no tensor, and a Core ML model takes tensors only: bind it in a wrapper's "
        "`forward` (`return model(x, 3)`) or pass it as a tensor (NotImplementedError: Placeholder val must "
        "be a tensor or fake tensor, but got type <class 'int'>, value 3)."
    )


BRANCHED = """
    import torch

    class Branched(torch.nn.Module):
        def forward(self, x):
            y = x * 2
            return torch.cond(y.sum() > 0, lambda t: t + 1, lambda t: t - 1, (y,))

    torch.export.export(Branched().eval(), (torch.randn(3),))
"""


async def test_torch_cond_is_refused_on_its_line_as_subgraphs_coremltools_does_not_take(
    engine: Engine, write
) -> None:
    path = write("branched.py", BRANCHED)
    result = await _check(engine, path)
    refused = only(result, "coreml-unsupported-op")
    assert refused.range.start.line == line_of(path, "torch.cond(")
    assert refused.message.startswith("Core ML: coremltools does not take the subgraphs of `cond`"), (
        refused.message
    )
    assert refused.message.endswith("(NotImplementedError: Only torch.Tensor attr handled yet).")
