"""Failures below forward: a helper in another file, a nested submodule."""

import torch
from helpers import Inner, scale


class UsesHelper(torch.nn.Module):
    def forward(self, x):
        y = x.abs()
        return scale(y)


class Middle(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def forward(self, x):
        return self.inner(x) * 3


class Outer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.middle = Middle()

    def forward(self, x):
        return self.middle(x + 1)

    def example_inputs(self):
        return (torch.randn(4),)


if __name__ == "__main__":
    torch.export.export(UsesHelper(), (torch.randn(4),))
