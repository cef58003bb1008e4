"""A data-dependent branch: torch.export cannot keep a Python `if` on tensor values."""

import torch


class Guarded(torch.nn.Module):
    def forward(self, x):
        if (x < 0).any():
            return x.abs()
        return x.tanh()


if __name__ == "__main__":
    torch.export.export(Guarded(), (torch.ones(3),))
