"""Modules whose diagnosis differed between torch 2.10-2.15 (issue #14); tests/test_torch_versions.py."""

import time

import torch
from torch import nn


@torch.library.custom_op("exportlens_versions::quadruple", mutates_args=())
def quadruple(x: torch.Tensor) -> torch.Tensor:
    return x * 4


def _sin(x):
    return x.sin()


def _positive(x):
    return x > 0


class TaskHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])

    def forward(self, x, task_id):
        return self.heads[int(task_id)](x)


class PerfCounter(nn.Module):
    def forward(self, x):
        return x * time.perf_counter()


class MeanIf(nn.Module):
    def forward(self, x):
        if x.mean() > 0.5:  # a float comparison
            return x * 2
        return x


class WhileSum(nn.Module):
    def forward(self, x):
        while x.sum() < 10:
            x = x * 2
        return x


class BoolAny(nn.Module):
    def forward(self, x):
        if bool(x.any()):
            return x.abs()
        return x


class NormIf(nn.Module):
    def forward(self, x):
        y = x.norm()
        if y > 1:  # the norm decides
            return x / y
        return x


class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros((), dtype=torch.long))

    def forward(self, x):
        self.calls += 1
        return x + 1


class PrintItem(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        h = self.lin(x)
        print(f"mean activation {h.mean().item()}")
        return h.relu()


class Commented(nn.Module):
    def forward(self, x):
        return x + time.time()  # a comment the range must not cover


class NoFake(nn.Module):
    def forward(self, x):
        return quadruple(x) + 1


class CondDtype(nn.Module):
    def forward(self, x):
        return torch.cond(x.sum() > 0, _sin, _positive, (x,))


if __name__ == "__main__":
    torch.export.export(TaskHeads(), (torch.randn(2, 4), torch.tensor(1)))
    torch.export.export(PerfCounter(), (torch.randn(4),))
    torch.export.export(MeanIf(), (torch.randn(4),))
    torch.export.export(WhileSum(), (torch.ones(4),))
    torch.export.export(BoolAny(), (torch.randn(4),))
    torch.export.export(NormIf(), (torch.randn(4),))
    torch.export.export(Counter(), (torch.randn(4),))
    torch.export.export(PrintItem(), (torch.randn(2, 4),))
    torch.export.export(Commented(), (torch.randn(4),))
    torch.export.export(NoFake(), (torch.randn(4),))
    torch.export.export(CondDtype(), (torch.randn(4),))
