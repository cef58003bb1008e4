"""Compile Mistral's sparse mixture-of-experts layer (top-2 of 4 experts) and run a batch of tokens."""

import torch
from moe import MoeArgs, MoeLayer
from torch import nn

if __name__ == "__main__":
    dim, hidden = 16, 32
    experts = [nn.Sequential(nn.Linear(dim, hidden), nn.SiLU(), nn.Linear(hidden, dim)) for _ in range(4)]
    layer = MoeLayer(experts, nn.Linear(dim, 4, bias=False), MoeArgs(num_experts=4, num_experts_per_tok=2))
    fast = torch.compile(layer.eval())
    out = fast(torch.randn(8, dim))
