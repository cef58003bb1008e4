"""Clean: dropout and batch-norm exported in eval mode, state kept in a registered buffer."""

import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.drop = nn.Dropout(0.3)
        self.head = nn.Linear(8, 10)
        self.register_buffer("calls", torch.zeros((), dtype=torch.long))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        h = torch.relu(self.bn(self.conv(x)))
        return self.head(self.drop(h.mean(dim=(2, 3))))


if __name__ == "__main__":
    torch.export.export(Classifier().eval(), (torch.randn(2, 3, 16, 16),))
