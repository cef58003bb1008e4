"""Public model code through the `executorch` target. MobileNetV2's inverted-residual blocks: the whole
program goes to XNNPACK (convolutions with their batch norms folded, ReLU6, the residual add, the
pool) and the `.pte` runs within tolerance of eager in ExecuTorch's runtime. A small text encoder on
PyTorch's own `nn.TransformerEncoderLayer` (torch/nn/modules/transformer.py, as shipped with torch;
d=32, 2 heads, random init): the matmuls go to XNNPACK, the layer norms, the embedding and a
rank-3 mean stay on portable kernels, each warned once on the user's line that made it.

The model is modelled on torchvision's `torchvision/models/mobilenetv2.py` (`InvertedResidual`, its
`Conv2dNormActivation` with ReLU6; BSD-3-Clause), written out here in a tiny config (8 and 16
channels, a 16x16 input), random init, nothing downloaded: torchvision itself does not load beside
torch 2.13.0 (DEVELOPERS.md)."""

from __future__ import annotations

from pathlib import Path

from exportlens.check import CheckOptions, check_file
from exportlens.engine import Engine
from exportlens.findings import FileResult
from tests.conftest import line_of

MOBILENET_V2_BLOCKS = """
    import torch
    from torch import nn


    class ConvBNReLU6(nn.Sequential):
        def __init__(self, inp, oup, kernel_size=3, stride=1, groups=1):
            padding = (kernel_size - 1) // 2
            super().__init__(
                nn.Conv2d(inp, oup, kernel_size, stride, padding, groups=groups, bias=False),
                nn.BatchNorm2d(oup),
                nn.ReLU6(inplace=True),
            )


    class InvertedResidual(nn.Module):
        def __init__(self, inp, oup, stride, expand_ratio):
            super().__init__()
            hidden = int(round(inp * expand_ratio))
            self.use_res_connect = stride == 1 and inp == oup
            layers = []
            if expand_ratio != 1:
                layers.append(ConvBNReLU6(inp, hidden, kernel_size=1))  # pointwise expansion
            layers += [
                ConvBNReLU6(hidden, hidden, stride=stride, groups=hidden),  # depthwise
                nn.Conv2d(hidden, oup, 1, 1, 0, bias=False),  # linear bottleneck
                nn.BatchNorm2d(oup),
            ]
            self.conv = nn.Sequential(*layers)

        def forward(self, x):
            if self.use_res_connect:
                return x + self.conv(x)
            return self.conv(x)


    class Blocks(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(InvertedResidual(8, 8, 1, 4), InvertedResidual(8, 16, 2, 6))
            self.pool = nn.AdaptiveAvgPool2d(1)

        def forward(self, x):
            return self.pool(self.features(x)).flatten(1)


    torch.export.export(Blocks().eval(), (torch.randn(1, 8, 16, 16),))
"""


ENCODER = """
    import torch
    from torch import nn


    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(50, 32)
            self.layer = nn.TransformerEncoderLayer(32, 2, dim_feedforward=64, dropout=0.0, batch_first=True)
            self.head = nn.Linear(32, 5)

        def forward(self, tokens):
            h = self.layer(self.embed(tokens))
            return self.head(h.mean(1))


    torch.export.export(Encoder().eval(), (torch.randint(0, 50, (2, 7)),))
"""


async def _check(engine: Engine, path: str) -> FileResult:
    options = CheckOptions(roots=[str(Path(path).parent)], lowerings=("export", "executorch"))
    return await check_file(engine, path, None, options)


async def test_mobilenet_v2_blocks_delegate_whole_to_xnnpack_and_run_as_eager(engine: Engine, write) -> None:
    path = write("mobilenet_v2_blocks.py", MOBILENET_V2_BLOCKS)
    result = await _check(engine, path)
    assert result.diagnostics == []
    (blocks,) = [m for m in result.modules if m.name == "Blocks"]
    (lowering,) = blocks.lowerings
    assert lowering["target"] == "executorch" and lowering["ok"] is True
    facts = lowering["facts"]
    # torch 2.13 + executorch 1.5.1: 19 op nodes after the edge passes, all in one XNNPACK delegate
    assert facts["delegated"] == "19/19 nodes" and facts["backends"] == {"XnnpackBackend": 19}
    assert facts["delegated_subgraphs"] == 1 and facts["portable_ops"] == []
    assert facts["numeric_checks"] == ["the example inputs"] and facts["pte_bytes"] > 4 * 8 * 32


async def test_a_transformer_encoder_warns_once_per_line_what_stays_portable(engine: Engine, write) -> None:
    path = write("encoder.py", ENCODER)
    result = await _check(engine, path)
    found = {d.range.start.line: d for d in result.diagnostics}
    assert [d.code for d in result.diagnostics] == ["executorch-not-delegated"] * 2, result.diagnostics
    layer, mean = found[line_of(path, "h = self.layer(")], found[line_of(path, "h.mean(1)")]
    assert "`aten.embedding.default` (XNNPACK has no support for it)" in layer.message
    assert " more are not delegated: they run on portable CPU kernels" in layer.message
    assert "mean.dim only supports averaging 4D tensors, got tensor of rank 3" in mean.message
    (encoder,) = [m for m in result.modules if m.name == "Encoder"]
    (lowering,) = encoder.lowerings
    facts = lowering["facts"]
    assert lowering["ok"] is True and facts["numeric_checks"] == ["the example inputs"]
    assert "aten.native_layer_norm.default" in facts["portable_ops"]
    delegated, total = map(int, facts["delegated"].removesuffix(" nodes").split("/"))
    assert 0 < delegated < total and facts["delegated_subgraphs"] > 1  # 41/62 and 8 here
