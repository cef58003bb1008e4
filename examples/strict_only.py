"""Refused by strict export (dynamo) only; non-strict bakes the values in.  Check with --mode strict."""

import time

import torch


class Stamped(torch.nn.Module):
    def forward(self, x):
        return x + time.time()  # untraceable-call


if __name__ == "__main__":
    torch.export.export(Stamped(), (torch.randn(4),), strict=True)
