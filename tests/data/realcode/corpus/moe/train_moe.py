"""Train-script shape: a `main()` that builds Mistral's MoE layer, compiles it and runs a batch."""

import torch
from moe import MoeArgs, MoeLayer
from torch import nn


def main() -> None:
    dim, hidden = 16, 32
    experts = [nn.Sequential(nn.Linear(dim, hidden), nn.SiLU(), nn.Linear(hidden, dim)) for _ in range(4)]
    layer = MoeLayer(experts, nn.Linear(dim, 4, bias=False), MoeArgs(num_experts=4, num_experts_per_tok=2))
    fast = torch.compile(layer.eval())
    tokens = torch.randn(8, dim)
    with torch.no_grad():
        out = fast(tokens)
    print(out.shape)


if __name__ == "__main__":
    main()
