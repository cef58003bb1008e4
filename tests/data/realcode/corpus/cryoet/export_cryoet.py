"""Export the CryoET particle detector (a small 3D U-Net config) on one tomogram crop."""

import torch
from cryoet.modelling.detection.unet3d_detection import UNet3DForObjectDetection, UNet3DForObjectDetectionConfig

if __name__ == "__main__":
    config = UNet3DForObjectDetectionConfig(
        encoder_channels=(8, 12, 16), num_blocks_per_stage=(1, 1, 1), num_blocks_per_decoder_stage=(1, 1)
    )
    model = UNet3DForObjectDetection(config).eval()
    volume = torch.randn(1, 1, 16, 32, 32)
    torch.export.export(model, (volume,))
