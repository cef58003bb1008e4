"""Export DDIM's diffusion U-Net, configured as its YAML config would be (a namespace)."""

from types import SimpleNamespace

import torch
from diffusion import Model
from torch.export import Dim

if __name__ == "__main__":
    config = SimpleNamespace(
        model=SimpleNamespace(
            type="simple",
            in_channels=3,
            out_ch=3,
            ch=32,
            ch_mult=[1, 2],
            num_res_blocks=1,
            attn_resolutions=[8],
            dropout=0.0,
            resamp_with_conv=True,
        ),
        data=SimpleNamespace(image_size=16),
        diffusion=SimpleNamespace(num_diffusion_timesteps=1000),
    )
    model = Model(config).eval()
    x = torch.randn(2, 3, 16, 16)
    t = torch.randint(0, 1000, (2,))
    torch.export.export(model, (x, t))
    batch = Dim("batch")
    torch.export.export(model, (x, t), dynamic_shapes=({0: batch}, {0: batch}))
    torch.export.export(model, (x, t), dynamic_shapes=({2: Dim("size"), 3: Dim("size")}, None))
