"""Export torchaudio's Conformer encoder on padded features with their lengths."""

import torch
from conformer import Conformer
from torch.export import Dim

if __name__ == "__main__":
    model = Conformer(
        input_dim=16, num_heads=2, ffn_dim=32, num_layers=2, depthwise_conv_kernel_size=3
    ).eval()
    lengths = torch.tensor([10, 7])
    features = torch.randn(2, 10, 16)
    torch.export.export(model, (features, lengths))
    batch, frames = Dim("batch"), Dim("frames")
    torch.export.export(model, (features, lengths), dynamic_shapes=({0: batch, 1: frames}, {0: batch}))
