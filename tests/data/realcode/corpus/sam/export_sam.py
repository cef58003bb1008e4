"""Export SAM's image encoder (a windowed ViT with relative positions) from the modeling package."""

import torch
from segment_anything.modeling import ImageEncoderViT
from torch.export import Dim

if __name__ == "__main__":
    encoder = ImageEncoderViT(
        img_size=64, patch_size=8, embed_dim=32, depth=2, num_heads=2, out_chans=16,
        window_size=3, global_attn_indexes=(1,), use_rel_pos=True,
    ).eval()
    image = torch.randn(1, 3, 64, 64)
    torch.export.export(encoder, (image,))
    # SAM embeds one image at a time: a dynamic batch from that example.
    torch.export.export(encoder, (image,), dynamic_shapes=({0: Dim("batch")},))
    images = torch.randn(2, 3, 64, 64)
    torch.export.export(encoder, (images,), dynamic_shapes=({0: Dim("batch")},))
