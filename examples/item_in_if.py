"""A value read out of a tensor decides control flow: `data-dependent-guard` in both tracers."""

import torch


class TopK(torch.nn.Module):
    def forward(self, x):
        count = x.nonzero().shape[0]
        if count > 3:  # torch cannot know `u0 > 3` while tracing
            return x.topk(3).values
        return x[:3]


if __name__ == "__main__":
    torch.export.export(TopK(), (torch.randn(8),))
