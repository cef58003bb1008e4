"""An example of size 1 on a dynamic Dim: `dim-example-too-small` (torch suggests `bx = 1`; use size ≥ 2)."""

import torch
from torch.export import Dim


class Add(torch.nn.Module):
    def forward(self, x):
        return x + 1


if __name__ == "__main__":
    torch.export.export(Add(), (torch.randn(1, 4),), dynamic_shapes={"x": {0: Dim("bx")}})
