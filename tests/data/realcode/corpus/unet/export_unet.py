"""Export the brain-segmentation U-Net: static, then any image size."""

import torch
from torch.export import Dim
from unet import UNet

if __name__ == "__main__":
    model = UNet(in_channels=3, out_channels=1, init_features=8).eval()
    image = torch.randn(1, 3, 64, 64)
    torch.export.export(model, (image,))
    # Any height and width: four poolings and the skip connections need multiples of 16.
    torch.export.export(model, (image,), dynamic_shapes=({2: Dim("h"), 3: Dim("w")},))
    torch.export.export(model, (image,), dynamic_shapes=({2: 16 * Dim("h16"), 3: 16 * Dim("w16")},))
    # A batch of slices, from a one-slice example.
    torch.export.export(model, (image,), dynamic_shapes=({0: Dim("batch")},))
