"""On the device: the top-p (nucleus) filter of a sampler, as LLM generation loops write it.

This folder's pyproject.toml turns on the `executorch` target: the exported program is lowered with
XNNPACK, built into a `.pte` and loaded by ExecuTorch's own runtime. It exports cleanly, and then:
- `torch.sort` has no kernel in ExecuTorch's runtime: the `.pte` builds and fails to load
  (executorch-missing-kernel, an error). `torch.topk(probs, probs.shape[-1], dim=-1)` is the
  spelling the runtime has: the same values in the same order; it then loads, runs as eager does,
  and topk runs on a portable kernel (a warning, as cumsum).
- `torch.cumsum` is not delegated to XNNPACK: it runs on a portable kernel (a warning).
"""

import torch


class NucleusFilter(torch.nn.Module):
    def __init__(self, hidden: int = 64, vocab: int = 256, top_p: float = 0.9) -> None:
        super().__init__()
        self.head = torch.nn.Linear(hidden, vocab)
        self.top_p = top_p

    def forward(self, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        probs = torch.softmax(self.head(h), dim=-1)
        ranked, order = torch.sort(probs, dim=-1, descending=True)  # executorch-missing-kernel
        cumulative = torch.cumsum(ranked, dim=-1)  # executorch-not-delegated
        return cumulative, order


if __name__ == "__main__":
    torch.export.export(NucleusFilter().eval(), (torch.randn(2, 64),))
