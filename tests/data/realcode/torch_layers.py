"""Patterns from PyTorch's own tutorials: torch.nn layers refusing inside, first-layer inference."""

import math

import torch
import torch.nn.functional as F
from torch import nn


class ConvNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.head = nn.Linear(32, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.conv2(x))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.head(x)


class SelfAttention(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.attn = nn.MultiheadAttention(32, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out, _ = self.attn(x, x, x, need_weights=False)
        return out


class TransformerModel(nn.Module):
    def __init__(self, ntoken: int = 100, d_model: int = 32, nhead: int = 4, nlayers: int = 2) -> None:
        super().__init__()
        self.embedding = nn.Embedding(ntoken, d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, 64, 0.1)
        self.transformer_encoder = nn.TransformerEncoder(layer, nlayers)
        self.d_model = d_model
        self.linear = nn.Linear(d_model, ntoken)

    def forward(self, src: torch.Tensor) -> torch.Tensor:
        src = self.embedding(src) * math.sqrt(self.d_model)
        src_mask = nn.Transformer.generate_square_subsequent_mask(len(src))
        output = self.transformer_encoder(src, src_mask)
        return self.linear(output)


if __name__ == "__main__":
    model = TransformerModel().eval()
    src = torch.randint(0, 100, (10, 2))
    torch.export.export(model, (src,), dynamic_shapes=({0: torch.export.Dim("seq", max=64)},))
