"""The `.pte` computing differently from eager (executorch-numeric-mismatch), on the line whose op makes
the difference, proven by lowering again without XNNPACK taking that op (worker/lowering/executorch_blame.py).

GFPGAN's `ResBlock` (TencentARC/GFPGAN, gfpgan/archs/gfpganv1_clean_arch.py; Apache-2.0), as it is:
its "down" mode resizes with `F.interpolate(scale_factor=0.5, mode='bilinear')`. On an odd size (a
15x15 map: 7x7 out) XNNPACK reads the source pixels from the sizes (7/15), PyTorch from the factor
(0.5): executorch 1.5.1's `.pte` differs by about 1 where eager's numbers are of order 1. Small
config (4 -> 8 channels), random init; the same block on an even size matches eager.
"""

from __future__ import annotations

from pathlib import Path

from exportlens.check import CheckOptions, check_file
from exportlens.engine import Engine
from exportlens.findings import FileResult
from tests.conftest import line_of

RESBLOCK = """
    import torch
    import torch.nn as nn
    from torch.nn import functional as F


    class ResBlock(nn.Module):
        \"\"\"Residual block with bilinear upsampling/downsampling.\"\"\"

        def __init__(self, in_channels, out_channels, mode='down'):
            super(ResBlock, self).__init__()
            self.conv1 = nn.Conv2d(in_channels, in_channels, 3, 1, 1)
            self.conv2 = nn.Conv2d(in_channels, out_channels, 3, 1, 1)
            self.skip = nn.Conv2d(in_channels, out_channels, 1, bias=False)
            if mode == 'down':
                self.scale_factor = 0.5
            elif mode == 'up':
                self.scale_factor = 2

        def forward(self, x):
            out = F.leaky_relu_(self.conv1(x), negative_slope=0.2)
            # upsample/downsample
            out = F.interpolate(out, scale_factor=self.scale_factor, mode='bilinear', align_corners=False)
            out = F.leaky_relu_(self.conv2(out), negative_slope=0.2)
            # skip
            x = F.interpolate(x, scale_factor=self.scale_factor, mode='bilinear', align_corners=False)
            skip = self.skip(x)
            out = out + skip
            return out


    if __name__ == "__main__":
        torch.export.export(ResBlock(4, 8, "down").eval(), (torch.randn(1, 4, {size}, {size}),))
"""


async def _check(engine: Engine, path: str) -> FileResult:
    options = CheckOptions(roots=[str(Path(path).parent)], lowerings=("export", "executorch"), timeout=120.0)
    return await check_file(engine, path, None, options)


async def test_a_resize_xnnpack_reads_otherwise_is_a_mismatch_on_its_line_with_the_proof(
    engine: Engine, write
) -> None:
    path = write("gfpgan_resblock.py", RESBLOCK.format(size=15))
    result = await _check(engine, path)
    (mismatch,) = result.diagnostics
    assert mismatch.code == "executorch-numeric-mismatch" and mismatch.severity == "warning"
    assert mismatch.range.start.line == line_of(path, "out = F.interpolate("), mismatch.message
    assert "max abs error" in mismatch.message
    assert "XNNPACK's `upsample_bilinear2d.vec` makes the difference" in mismatch.message
    assert "`recompute_scale_factor=True`" in mismatch.message
    (block,) = result.modules
    assert block.lowerings[0]["facts"]["numeric_checks"] == ["the example inputs"]


async def test_on_an_even_size_and_with_the_fix_the_pte_matches_eager(engine: Engine, write) -> None:
    even = await _check(engine, write("gfpgan_even.py", RESBLOCK.format(size=16)))
    assert even.diagnostics == [] and even.modules[0].lowerings[0]["ok"] is True
    fixed = RESBLOCK.format(size=15).replace(
        "align_corners=False)", "align_corners=False, recompute_scale_factor=True)"
    )
    result = await _check(engine, write("gfpgan_fixed.py", fixed))
    assert result.diagnostics == [], [d.message for d in result.diagnostics]
