# ExportLens real-code corpus, case `swin`: what Swin-Transformer imports from timm
# (`from timm.models.layers import DropPath, to_2tuple, trunc_normal_`), written here so the case
# needs no timm: stochastic depth per sample, a pair from an int, a truncated normal init.
import collections.abc

import torch
import torch.nn as nn


def to_2tuple(x):
    return tuple(x) if isinstance(x, collections.abc.Iterable) else (x, x)


def trunc_normal_(tensor, std=1.0):
    return nn.init.trunc_normal_(tensor, std=std, a=-2 * std, b=2 * std)


class DropPath(nn.Module):
    def __init__(self, drop_prob=0.0):
        super().__init__()
        self.drop_prob = drop_prob

    def forward(self, x):
        if self.drop_prob == 0.0 or not self.training:
            return x
        keep = 1 - self.drop_prob
        mask = x.new_empty((x.shape[0],) + (1,) * (x.ndim - 1)).bernoulli_(keep)
        return x * mask / keep
