"""Refused by non-strict export (fake tensors) only: `.numpy()` and `float(tensor)` need real data."""

import numpy as np
import torch


class NumpyMath(torch.nn.Module):
    def forward(self, x):
        return torch.from_numpy(np.sin(x.numpy()))  # tensor-numpy


class Scale(torch.nn.Module):
    def forward(self, x):
        return x * float(x.sum())  # tensor-to-python-scalar


if __name__ == "__main__":
    torch.export.export(NumpyMath(), (torch.randn(4),))
    torch.export.export(Scale(), (torch.randn(4),))
