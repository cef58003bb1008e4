"""A robust pooling head: the ONNX UI test and the README's picture of an ONNX refusal."""

import torch
from torch import nn


class MedianPoolHead(nn.Module):
    """Pools token features by their median, which outliers cannot drag, then classifies."""

    def __init__(self, dim: int = 16, classes: int = 4) -> None:
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, tokens):
        h = torch.relu(self.proj(tokens))
        median = torch.kthvalue(h, h.shape[1] // 2 + 1, dim=1).values
        return self.head(median)


if __name__ == "__main__":
    torch.export.export(MedianPoolHead(), (torch.randn(2, 9, 16),))
