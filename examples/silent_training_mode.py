"""Exported in training mode: dropout stays random and batch-norm uses batch statistics."""

import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.drop = nn.Dropout(0.3)
        self.head = nn.Linear(8, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.bn(self.conv(x)))
        x.mul_(0.5)  # writes into the caller's tensor
        return self.head(self.drop(h.mean(dim=(2, 3))))


if __name__ == "__main__":
    torch.export.export(Classifier(), (torch.randn(2, 3, 16, 16),))  # fix: Classifier().eval()
