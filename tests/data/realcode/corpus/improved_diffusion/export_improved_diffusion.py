"""Export improved-diffusion's UNetModel (a package with relative imports), class-conditional."""

import torch
from improved_diffusion.unet import SuperResModel, UNetModel
from torch.export import Dim

if __name__ == "__main__":
    model = UNetModel(
        in_channels=3,
        model_channels=32,
        out_channels=3,
        num_res_blocks=1,
        attention_resolutions=(2,),
        dropout=0.0,
        channel_mult=(1, 2),
        num_classes=10,
        num_heads=2,
    ).eval()
    x = torch.randn(2, 3, 16, 16)
    timesteps = torch.randint(0, 1000, (2,))
    y = torch.randint(0, 10, (2,))
    torch.export.export(model, (x, timesteps, y))
    batch = Dim("batch")
    torch.export.export(model, (x, timesteps, y), dynamic_shapes=({0: batch}, {0: batch}, {0: batch}))
    # The same model as its training flags build it: gradient checkpointing on.
    trained = UNetModel(
        in_channels=3, model_channels=32, out_channels=3, num_res_blocks=1,
        attention_resolutions=(2,), dropout=0.0, channel_mult=(1, 2), num_classes=10, num_heads=2,
        use_checkpoint=True,
    ).eval()
    torch.export.export(trained, (x, timesteps, y))
    # Super-resolution: the low-resolution image is upsampled to whatever size x has.
    sr = SuperResModel(
        in_channels=3, model_channels=32, out_channels=3, num_res_blocks=1, attention_resolutions=(2,),
        channel_mult=(1, 2),
    ).eval()
    low_res = torch.randn(2, 3, 8, 8)
    torch.export.export(sr, (x, timesteps), {"low_res": low_res})
