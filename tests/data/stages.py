"""Failures before the export itself: inputs, constructors, exits, memory."""

import sys

import torch


class BadInputs(torch.nn.Module):
    def forward(self, x):
        return x + 1


class BadInit(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        raise ValueError("layer sizes do not match")

    def forward(self, x):
        return self.fc(x)


class Exits(torch.nn.Module):
    def forward(self, x):
        return x + 1

    def example_inputs(self):
        sys.exit(3)


class Interrupted(torch.nn.Module):
    def forward(self, x):
        return x + 1

    def example_inputs(self):
        raise KeyboardInterrupt


class Huge(torch.nn.Module):
    def forward(self, x):
        return x + 1

    def example_inputs(self):
        return (torch.empty(1 << 40),)


class NoMemory(torch.nn.Module):
    def forward(self, x):
        return x + 1

    def example_inputs(self):
        raise MemoryError()


class ExitsInForward(torch.nn.Module):
    def forward(self, x):
        sys.exit("stop")

    def example_inputs(self):
        return (torch.randn(4),)


if __name__ == "__main__":
    torch.export.export(BadInit(), (torch.randn(2, 4),))
    weights = torch.randn(3, 4) @ torch.randn(3, 4)
    torch.export.export(BadInputs(), (weights,))
