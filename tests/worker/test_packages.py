"""A model file inside a package runs as `import pkg.mod` would: its parent packages first.

The layout is segment-anything's (`segment_anything/__init__.py` imports from `.modeling`, whose
`__init__.py` imports `ImageEncoderViT` from `.image_encoder`, which imports `.common`): checking
`image_encoder.py` must not meet its own half-initialised module through the package's `__init__`.
"""

from __future__ import annotations

from exportlens.engine import Engine
from tests.conftest import check, line_of

PACKAGE_INIT = "from .modeling import ImageEncoder\n"
MODELING_INIT = "from .common import LayerNorm2d\nfrom .image_encoder import ImageEncoder\n"
COMMON = """
    import torch
    import torch.nn as nn


    class LayerNorm2d(nn.Module):
        def __init__(self, channels: int = 4) -> None:
            super().__init__()
            self.weight = nn.Parameter(torch.ones(channels))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x * self.weight[:, None, None]
"""
ENCODER = """
    import torch
    import torch.nn as nn

    from .common import LayerNorm2d


    class ImageEncoder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = nn.Conv2d(3, 4, 1)
            self.norm = LayerNorm2d(4)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = self.norm(self.proj(x))
            if y.sum() > 0:
                return y
            return -y

        def example_inputs(self):
            return (torch.randn(1, 3, 8, 8),)
"""


async def test_a_package_module_imports_like_a_package_module(engine: Engine, write) -> None:
    write("seganything/__init__.py", PACKAGE_INIT)
    write("seganything/modeling/__init__.py", MODELING_INIT)
    write("seganything/modeling/common.py", COMMON)
    path = write("seganything/modeling/image_encoder.py", ENCODER)
    result = await check(engine, path, mode="non-strict")
    assert [d.code for d in result.diagnostics] == ["data-dependent-branch"], [
        (d.code, d.message[:200]) for d in result.diagnostics
    ]
    assert result.diagnostics[0].range.start.line == line_of(path, "if y.sum() > 0:")
    # the buffer is what is checked, not the saved file the package's __init__ imported
    edited = ENCODER.replace("if y.sum() > 0:", "if y.mean() > 0:")
    result = await check(engine, path, mode="non-strict", source=edited.replace("\n    ", "\n").lstrip())
    (finding,) = result.diagnostics
    assert "y.mean() > 0" in finding.message
