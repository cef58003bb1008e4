"""A small residual network: the graph panel's UI test and the README's picture."""

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(16)
        self.fc = nn.Linear(16, 16)

    def forward(self, x):
        h = self.norm(x)
        h = torch.relu(self.fc(h))
        return x + h


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Linear(8, 16)
        self.blocks = nn.Sequential(Block(), Block())
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        h = self.embed(x)
        h = self.blocks(h)
        return self.head(h).softmax(-1)


if __name__ == "__main__":
    batch = torch.export.Dim("batch", min=2, max=64)
    torch.export.export(Net(), (torch.randn(4, 8),), dynamic_shapes=({0: batch},))
