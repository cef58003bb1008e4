"""Modules that export cleanly in both modes: no error may be reported."""

import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))

    def forward(self, x):
        return self.net(x)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(8, 10)

    def forward(self, x):
        return self.head(self.pool(torch.relu(self.conv(x))).flatten(1))


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(32, 96)
        self.out = nn.Linear(32, 32)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        weights = torch.softmax(q @ k.transpose(-2, -1) / 32**0.5, dim=-1)
        return self.out(weights @ v)

    def example_inputs(self):
        return (torch.randn(2, 8, 32),)


class GoodCond(nn.Module):
    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda t: t.sin(), lambda t: t.cos(), (x,))

    def example_inputs(self):
        return (torch.randn(4),)


if __name__ == "__main__":
    batch = torch.export.Dim("batch", min=2, max=64)
    torch.export.export(MLP(), (torch.randn(8, 16),), dynamic_shapes={"x": {0: batch}})
