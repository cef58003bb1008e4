"""Helpers in another workspace file: the finding must land here, with the chain back."""

import torch


def gate(x):
    if x.sum() > 0:
        return x * 2
    return x


def scale(x):
    return gate(x) + 1


class Inner(torch.nn.Module):
    def forward(self, x):
        if x.max().item() > 1:
            return x - 1
        return x
