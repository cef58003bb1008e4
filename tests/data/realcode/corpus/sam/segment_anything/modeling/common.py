# ExportLens real-code corpus, case `sam`: shared layers of the modeling package.
# Modelled on facebookresearch/segment-anything segment_anything/modeling/common.py @
# dca509fe793f601edb92606367a655c15ac00fdf (Apache License 2.0, Copyright (c) Meta Platforms, Inc.
# and affiliates). Written for this corpus, not a copy: the MLP block and the channels-first
# LayerNorm2d that image_encoder.py imports relatively.
from typing import Type

import torch
import torch.nn as nn


class MLPBlock(nn.Module):
    def __init__(self, embedding_dim: int, mlp_dim: int, act: Type[nn.Module] = nn.GELU) -> None:
        super().__init__()
        self.lin1 = nn.Linear(embedding_dim, mlp_dim)
        self.lin2 = nn.Linear(mlp_dim, embedding_dim)
        self.act = act()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.lin2(self.act(self.lin1(x)))


class LayerNorm2d(nn.Module):
    def __init__(self, num_channels: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(num_channels))
        self.bias = nn.Parameter(torch.zeros(num_channels))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(1, keepdim=True)
        var = (x - mean).pow(2).mean(1, keepdim=True)
        x = (x - mean) / torch.sqrt(var + self.eps)
        return self.weight[:, None, None] * x + self.bias[:, None, None]
