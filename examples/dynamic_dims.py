"""Dims that the code does not allow: specialised, narrowed, must-be-equal, example size 1."""

import torch
from torch.export import Dim


class Flatten(torch.nn.Module):
    def forward(self, x):
        return x.reshape(8, 16)  # dim-specialized: use x.reshape(-1, 16)


class Clip(torch.nn.Module):
    def forward(self, x):
        if x.shape[0] > 16:  # dim-range-narrowed: batch = Dim("batch", max=16)
            return x[:16]
        return x


class Mix(torch.nn.Module):
    def forward(self, x, y):
        return x * y  # dims-must-be-equal: by = bx


if __name__ == "__main__":
    batch, bx, by = Dim("batch"), Dim("bx"), Dim("by")
    torch.export.export(Flatten(), (torch.randn(8, 16),), dynamic_shapes={"x": {0: batch}})
    torch.export.export(Clip(), (torch.randn(8),), dynamic_shapes={"x": {0: batch}})
    torch.export.export(Mix(), (torch.randn(8), torch.randn(8)), dynamic_shapes={"x": {0: bx}, "y": {0: by}})
