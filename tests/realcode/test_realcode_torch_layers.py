"""PyTorch-tutorial code: first-layer inference on real forwards, refusals inside torch.nn layers."""

from __future__ import annotations

from pathlib import Path

import pytest

from exportlens.discovery import discover
from exportlens.engine import Engine
from tests.conftest import check, line_of
from tests.paths import DATA

PATH = str(DATA / "realcode" / "torch_layers.py")


def test_inference_uses_the_first_layer_in_source_order() -> None:
    """`x = relu(bn(conv1(x))) ... return head(x)`: the input feeds conv1, not the head
    (a breadth-first walk met `self.head(x)` first and built a (2, 32) input for a conv net)."""
    found = {t.name: t.inputs for t in discover(Path(PATH).read_text(encoding="utf-8"), PATH).subjects}
    assert found["ConvNet"] == {
        "kind": "inferred",
        "class": "ConvNet",
        "expr": "(torch.randn(2, 3, 32, 32),)",
    }
    assert found["SelfAttention"]["expr"] == "(torch.randn(8, 2, 32),)"


@pytest.mark.parametrize("mode", ["non-strict", "strict"])
async def test_tutorial_models(engine: Engine, mode: str) -> None:
    result = await check(engine, PATH, mode=mode)
    statuses = {m.name: m.status for m in result.modules}
    assert statuses["ConvNet"] == "exported"
    assert statuses["SelfAttention"] == "exported"
    errors = [d for d in result.diagnostics if d.severity == "error" and d.module == "TransformerModel"]
    codes = {(d.code, d.range.start.line) for d in errors}
    # torch.nn.TransformerEncoder compares the mask with a causal one (`torch.equal`): a branch on
    # values inside torch's layer; strict raises it as a CONSTRAINT_VIOLATION UserError, which is
    # still a data-dependent branch, not a Dim problem.
    assert ("data-dependent-branch", line_of(PATH, "self.transformer_encoder(src, src_mask)")) in codes
    branch = next(d for d in errors if d.code == "data-dependent-branch")
    # Which torch.nn line: the one torch's own message names (strict: inside MultiheadAttention).
    assert "(In library code: `" in branch.message and " at torch/nn/modules/" in branch.message
    assert any("/torch/nn/modules/" in r.path for r in branch.related)
    assert all(d.code != "dim-static-partner" for d in errors)
    if mode == "non-strict":
        # `len(src)` turns the dynamic length into a Python int: specialised, not a static partner.
        assert ("dim-specialized", line_of(PATH, "len(src)")) in codes


@pytest.mark.parametrize("mode", ["non-strict", "strict"])
async def test_patch_size_divisibility_names_the_multiple(engine: Engine, write, mode: str) -> None:
    """ViT patchify (vit-pytorch, einops `Rearrange`) with a dynamic image size: torch suggests the
    derived Dim `h = 4*_h`; the finding says "multiple of 4" on the reshape, not "narrow the range"."""
    path = write(
        f"patches_{mode}.py",
        """
        import torch
        from torch import nn
        from torch.export import Dim

        class Patches(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(3 * 4 * 4, 8)

            def forward(self, img):
                b, c, h, w = img.shape
                x = img.reshape(b, c, h // 4, 4, w // 4, 4)
                return self.proj(x.permute(0, 2, 4, 3, 5, 1).flatten(3))

        if __name__ == "__main__":
            shapes = ({2: Dim("h", max=64)},)
            torch.export.export(Patches(), (torch.randn(2, 3, 16, 16),), dynamic_shapes=shapes)
        """,
    )
    result = await check(engine, path, mode=mode)
    (finding,) = result.diagnostics
    assert finding.code == "dim-range-narrowed"
    assert finding.range.start.line == line_of(path, "img.reshape(b, c, h // 4, 4, w // 4, 4)")
    assert "`h` must be a multiple of 4" in finding.message
    assert "h = 4*_h" in finding.message
    assert finding.fix is not None and finding.fix["multiple_of"] == 4


async def test_static_then_dynamic_export_of_one_class_checks_both(engine: Engine, write) -> None:
    """Scripts often export once as is, then again with dynamic shapes: the second call is the one
    that fails, and used to be skipped (the first call alone provided the class's inputs)."""
    path = write(
        "twice.py",
        """
        import torch
        from torch import nn
        from torch.export import Dim

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(16, 4)

            def forward(self, x):
                return self.fc(x.reshape(8, 16))

        if __name__ == "__main__":
            model = Net().eval()
            x = torch.randn(8, 16)
            torch.export.export(model, (x,))
            torch.export.export(model, (x,), dynamic_shapes=({0: Dim("batch")},))
            torch.export.export(model, (x,))
        """,
    )
    result = await check(engine, path)
    second = line_of(path, "dynamic_shapes=({0: Dim")
    assert sorted((m.name, m.status) for m in result.modules) == [
        ("Net", "exported"),
        (f"Net@{second + 1}", "failed"),
    ]
    (finding,) = result.diagnostics
    assert (finding.code, finding.range.start.line) == ("dim-specialized", line_of(path, "x.reshape(8, 16)"))
