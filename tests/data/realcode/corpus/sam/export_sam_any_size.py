"""SAM's image encoder with a dynamic image size: torch alone takes about a minute to refuse it (the
window padding's symbolic shapes), so it is measured by bench/realcode_truth.py, not in the test suite."""

import torch
from segment_anything.modeling import ImageEncoderViT
from torch.export import Dim

if __name__ == "__main__":
    encoder = ImageEncoderViT(
        img_size=64,
        patch_size=8,
        embed_dim=32,
        depth=2,
        num_heads=2,
        out_chans=16,
        window_size=3,
        global_attn_indexes=(1,),
        use_rel_pos=True,
    ).eval()
    image = torch.randn(1, 3, 64, 64)
    # Any image size: the absolute position embedding is sized for 64x64.
    torch.export.export(encoder, (image,), dynamic_shapes=({2: Dim("h"), 3: Dim("w")},))
