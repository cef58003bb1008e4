"""User code calling an installed library whose forward refuses export."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "fakesite" / "lib" / "python3.11" / "site-packages"))

import torch
from tinylib import CachedDecoder, Configured, Gate, PositionalEncoder
from torch import nn
from torch.export import Dim


class Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = PositionalEncoder()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.encoder(x) * 2


if __name__ == "__main__":
    torch.export.export(Encoder(), (torch.randn(2, 8, 8),), dynamic_shapes=({1: Dim("seq")},))
    torch.export.export(Gate(), (torch.randn(4),))
    torch.export.export(CachedDecoder(), (torch.randn(2, 4),))
    ids = torch.randint(0, 10, (2, 3))
    torch.export.export(Configured(), (ids,))
    torch.export.export(Configured(pad_token_id=50), (ids,))
