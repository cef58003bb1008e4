"""Exports fine, but the side effects in forward run once at export time and are not in the program."""

import logging

import torch
from torch import nn

log = logging.getLogger(__name__)
SEEN_SHAPES = []


class Counting(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(16, 4)
        self.calls = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        log.info("forward on %s", tuple(x.shape))  # logged once, at export time
        SEEN_SHAPES.append(x.shape)  # appended once, never by the exported program
        self.calls += 1  # baked: the program always sees calls == 1
        self.last = x.detach()  # a tensor attribute, not a buffer: dropped
        return self.fc(x) * self.calls


if __name__ == "__main__":
    torch.export.export(Counting(), (torch.randn(2, 16),))
