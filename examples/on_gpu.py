"""Written for a GPU, checked on any machine: the tensors put on `cuda` are fake tensors on it.

No GPU is touched (docs/devices.md); hover `OnGpu` to see `Device: cuda:0` and the graph a GPU
gets. `AddsBias` makes its bias on the CPU inside a forward that runs on the GPU.
"""

import torch
from torch import nn
from torch.export import Dim


class OnGpu(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(16, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.autocast("cuda", dtype=torch.float16):
            return self.fc(x).relu()


class AddsBias(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(16, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.fc(x)
        out += torch.zeros(4)
        return out


if __name__ == "__main__":
    device = "cuda"  # named, not asked: `is_available()` would get this machine's answer (docs/devices.md)
    x = torch.randn(8, 16, device=device)
    torch.export.export(OnGpu().to(device).eval(), (x,), dynamic_shapes=({0: Dim("batch")},))
    torch.export.export(AddsBias().to(device).eval(), (x,))
