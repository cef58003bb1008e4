"""Export a DINOv2 ViT-S/14 backbone (small config) for a fixed and for any image size."""

import torch
from dinov2.layers import MemEffAttention, NestedTensorBlock
from dinov2.models.vision_transformer import DinoVisionTransformer
from functools import partial
from torch.export import Dim

if __name__ == "__main__":
    # vit_small's blocks, two of them, a narrower embedding.
    block = partial(NestedTensorBlock, attn_class=MemEffAttention)
    model = DinoVisionTransformer(
        img_size=56, patch_size=14, embed_dim=64, depth=2, num_heads=2, block_fn=block, block_chunks=0
    ).eval()
    images = torch.randn(2, 3, 56, 56)
    torch.export.export(model, (images,))
    # Any image size (forward takes *args: one shape per argument in a tuple), from a square example of the pretraining size.
    torch.export.export(model, (images,), dynamic_shapes=(({2: Dim("h"), 3: Dim("w")},),))
    # Any size, from a landscape example: the patch embedding asserts multiples of the patch size.
    wide = torch.randn(2, 3, 56, 84)
    torch.export.export(model, (wide,), dynamic_shapes=(({2: Dim("height"), 3: Dim("width")},),))
    # Sizes that are multiples of the patch size.
    patches = {2: 14 * Dim("h_patches", max=32), 3: 14 * Dim("w_patches", max=32)}
    torch.export.export(model, (wide,), dynamic_shapes=((patches,),))
