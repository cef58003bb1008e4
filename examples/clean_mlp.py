"""A module that exports cleanly, with a dynamic batch dimension."""

import torch
from torch import nn
from torch.export import Dim


class MLP(nn.Module):
    def __init__(self, d_in: int = 16, hidden: int = 32, d_out: int = 4) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, d_out))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


if __name__ == "__main__":
    batch = Dim("batch", min=2, max=64)
    ep = torch.export.export(MLP().eval(), (torch.randn(8, 16),), dynamic_shapes={"x": {0: batch}})
    print(ep)
