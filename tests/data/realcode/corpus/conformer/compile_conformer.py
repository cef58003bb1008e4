"""Compile torchaudio's Conformer encoder and run it on padded features with their lengths."""

import torch
from conformer import Conformer

if __name__ == "__main__":
    model = Conformer(input_dim=16, num_heads=2, ffn_dim=32, num_layers=2, depthwise_conv_kernel_size=3).eval()
    model.compile()
    out = model(torch.randn(2, 10, 16), torch.tensor([10, 7]))
