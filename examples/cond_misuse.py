"""torch.cond branches must agree: `cond-branch-mismatch` and `cond-branch-aliases-input`."""

import torch


class RankMismatch(torch.nn.Module):
    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda t: t.sin(), lambda t: t.sum(), (x,))


class ReturnsInput(torch.nn.Module):
    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda t: t, lambda t: t.cos(), (x,))  # use t.clone()


if __name__ == "__main__":
    torch.export.export(RankMismatch(), (torch.randn(4),))
    torch.export.export(ReturnsInput(), (torch.randn(4),))
