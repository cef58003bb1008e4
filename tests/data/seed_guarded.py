"""The modules of the torch 2.2.2 seed text, for the recorded failure records in torch222_records.json."""

import torch


class Logged(torch.nn.Module):
    def forward(self, x):
        w = x.tanh()
        print("tracing", tuple(x.shape))
        return w * 3


class Guarded(torch.nn.Module):
    def forward(self, x):
        if (x < 0).any():
            return x.abs()
        return x.tanh()


class Sin(torch.nn.Module):
    def forward(self, x):
        return torch.sin(x).sum()
