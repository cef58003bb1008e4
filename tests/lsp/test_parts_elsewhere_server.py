"""Parts whose parent is exported in another file, through the real server (issue 13, items 1 and 2).

- `blocks.py` defines `Block` / `SelfAttention`, which `model.py` (its `__main__` exports `GPT`)
  imports: opening `blocks.py` checks its classes with what `GPT` gives them, and what lands on
  `blocks.py` is shown there; a class `GPT` never calls is checked as any class no export covers
  (on a guess: what fails is an information, never an error).
- `GPT` exported by a script (`export.py`): opening the model's file shows that call's findings on
  its lines from the first check, and its parts are checked with what they get there.
- improved-diffusion as it is (a package: `unet.py`'s `UNetModel` holds `nn.py`'s `GroupNorm32`
  and `SiLU`), exported by a script: no false error, no noise, each part checked.
"""

from __future__ import annotations

from lsprotocol import types

from tests.discovery.test_parts_and_guesses import BLOCK
from tests.realcode_expected import CORPUS

from .conftest import Session, line_of

BLOCKS = BLOCK.split('    if __name__ == "__main__":')[0].replace(
    "    class Unused(nn.Module):", "    class Helper(nn.Module):"
)
MODEL = """
    import torch
    import torch.nn as nn

    from blocks import Block


    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.Sequential(Block(), Block())

        def forward(self, x):
            return self.blocks(x)


    if __name__ == "__main__":
        batch = torch.export.Dim("batch", min=2, max=64)
        torch.export.export(GPT(), (torch.randn(3, 5, 16),), dynamic_shapes=({0: batch},))
"""
BRANCH = "            if x.max() > 10:\n                x = x / 2\n"
BROKEN = BLOCKS.replace("            B, T, C = x.size()\n", "            B, T, C = x.size()\n" + BRANCH)


def count(lenses: list[str], prefix: str) -> int:
    return sum(title.startswith(prefix) for title in lenses)


def errors(diagnostics: list[types.Diagnostic]) -> list[types.Diagnostic]:
    return [d for d in diagnostics if d.severity == types.DiagnosticSeverity.Error]


async def test_a_sibling_files_classes_are_checked_with_what_the_parent_gives_them(server: Session) -> None:
    server.write("sibling/model.py", MODEL)
    diagnostics = await server.open("sibling/blocks.py", BLOCKS)
    # Alone, SelfAttention's guess is a 2-D tensor: not made. Helper, which GPT never calls, is
    # covered by no export: its guess is made, after GPT's, and what it says is information only.
    assert [(d.code, d.data["module"], d.severity) for d in diagnostics] == [
        ("guessed-inputs-failed", "Helper", types.DiagnosticSeverity.Information)
    ]
    uri = (server.root / "sibling/blocks.py").resolve().as_uri()
    lenses = await server.lenses(uri)
    assert count(lenses, "part of a module of model.py · alone: ✓ exports") == 2, lenses
    # Helper: GPT never calls it, its own guess failed
    assert not any(t == "part of a module of model.py" for t in lenses), lenses


async def test_a_failure_in_a_sibling_file_is_shown_there_once(server: Session) -> None:
    server.write("sibling_broken/model.py", MODEL)
    diagnostics = await server.open("sibling_broken/blocks.py", BROKEN)
    line = line_of(BROKEN, "if x.max() > 10:")
    assert [(d.range.start.line, d.code, d.data["module"]) for d in errors(diagnostics)] == [
        (line, "data-dependent-branch", "SelfAttention")
    ]
    parent = (server.root / "sibling_broken/model.py").resolve().as_uri()
    assert parent in {r.location.uri for r in errors(diagnostics)[0].related_information or []}


SCRIPT = """
    import torch

    from gpt import GPT

    if __name__ == "__main__":
        batch = torch.export.Dim("batch", min=2, max=64)
        torch.export.export(GPT(), (torch.randn(3, 5, 16),), dynamic_shapes=({0: batch},))
"""


async def test_a_script_exporting_the_parent_checks_its_parts_on_the_first_check(server: Session) -> None:
    model = BROKEN + MODEL.split("from blocks import Block\n")[1].split('    if __name__ == "__main__":')[0]
    server.write("scripted/export.py", SCRIPT)
    diagnostics = await server.open("scripted/gpt.py", model)
    line = line_of(model, "if x.max() > 10:")
    assert [(d.range.start.line, d.code) for d in errors(diagnostics)] == [(line, "data-dependent-branch")]
    assert not any(d.code == "no-example-inputs" for d in diagnostics)
    uri = (server.root / "scripted/gpt.py").resolve().as_uri()
    lenses = await server.lenses(uri)
    assert "✗ 1 export issue" in lenses, lenses  # GPT, by the script's call
    # SelfAttention and Block fail alone where GPT does (said once, GPT's); Helper is never called
    assert count(lenses, "part of a module of export.py · alone: ✗ failed") == 2, lenses


DIFFUSION = CORPUS / "improved_diffusion" / "improved_diffusion"
# The script a user writes beside the package (the corpus's own, one export call).
DIFFUSION_SCRIPT = """
    import torch
    from improved_diffusion.unet import UNetModel
    from torch.export import Dim

    if __name__ == "__main__":
        model = UNetModel(
            in_channels=3, model_channels=32, out_channels=3, num_res_blocks=1,
            attention_resolutions=(2,), dropout=0.0, channel_mult=(1, 2), num_classes=10, num_heads=2,
        ).eval()
        x = torch.randn(2, 3, 16, 16)
        timesteps = torch.randint(0, 1000, (2,))
        y = torch.randint(0, 10, (2,))
        batch = Dim("batch")
        torch.export.export(model, (x, timesteps, y), dynamic_shapes=({0: batch}, {0: batch}, {0: batch}))
"""


async def test_improved_diffusion_parts_in_a_sibling_file(server: Session) -> None:
    for file in sorted(DIFFUSION.glob("*.py")):
        server.write(f"diffusion/improved_diffusion/{file.name}", file.read_text(encoding="utf-8"))
    server.write("diffusion/export_unet.py", DIFFUSION_SCRIPT)
    nn_text = (DIFFUSION / "nn.py").read_text(encoding="utf-8")
    diagnostics = await server.open("diffusion/improved_diffusion/nn.py", nn_text)
    assert errors(diagnostics) == [] and not any(d.code == "no-example-inputs" for d in diagnostics)
    uri = (server.root / "diffusion/improved_diffusion/nn.py").resolve().as_uri()
    lenses = await server.lenses(uri)
    # SiLU and GroupNorm32: each checked with what UNetModel gives it
    assert count(lenses, "part of a module of export_unet.py · alone: ✓ exports") == 2, lenses
    unet = (DIFFUSION / "unet.py").read_text(encoding="utf-8")
    diagnostics = await server.open("diffusion/improved_diffusion/unet.py", unet)
    assert errors(diagnostics) == [], [(d.code, d.range.start.line, d.message) for d in diagnostics]
    uri = (server.root / "diffusion/improved_diffusion/unet.py").resolve().as_uri()
    lenses = await server.lenses(uri)
    assert any(t.startswith("✓ exports") for t in lenses), lenses  # UNetModel, by the script
    assert count(lenses, "part of a module of export_unet.py · alone: ✓ exports") >= 4, lenses


async def test_a_part_whose_dim_is_derived_is_checked_with_that_dim(server: Session) -> None:
    """Item 3: the part gets `seq + 1` tokens (a class token prepended): checked with torch's derived
    Dim, its range the parent's shifted by one, not with static shapes."""
    from tests.discovery.test_part_derived_dims import ENCODER

    text = ENCODER.replace("PASS", "self.mix(x)")
    diagnostics = await server.open("derived/vit_cls.py", text)
    assert errors(diagnostics) == []
    uri = (server.root / "derived/vit_cls.py").resolve().as_uri()
    header = await server.hover(uri, line_of(text, "class Mixer"), 8)
    assert header is not None and "✓ exports" in header, header
    assert "Dynamic dims: `x.shape[0] ∈ [2, 32]`, `x.shape[1] ∈ [3, 65]`." in header, header
