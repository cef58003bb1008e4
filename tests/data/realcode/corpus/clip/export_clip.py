"""Export CLIP's ViT image encoder (sized for 64x64 images: 2x2 patches of 32 and a class token in
its positional table) with dynamic image sides, as a user who wants any size would."""

import torch
from torch.export import Dim

from clip.model import VisionTransformer

if __name__ == "__main__":
    visual = VisionTransformer(input_resolution=64, patch_size=32, width=32, layers=1, heads=2, output_dim=16)
    visual = visual.eval()
    images = torch.randn(2, 3, 64, 64)
    torch.export.export(visual, (images,))
    sides = {2: Dim("h", min=64, max=512), 3: Dim("w", min=64, max=512)}
    torch.export.export(visual, (images,), dynamic_shapes=(sides,))
