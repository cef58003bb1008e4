"""Model files the configuration tests check through the CLI and the real server alike."""

# One class silenced by its ignore comment, one whose comment names no code (unknown-ignore-code).
BRANCHES = """import torch


class Gate(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:  # exportlens: ignore[data-dependent-branch]
            return x + 1
        return x - 1


class Gate2(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:  # exportlens: ignore[no-such-code]
            return x + 1
        return x - 1


torch.export.export(Gate().eval(), (torch.randn(3),))
torch.export.export(Gate2().eval(), (torch.randn(3),))
"""
# Refused by the strict tracer only (examples/strict_only.py); its export call says no `strict=`.
STAMPED = """import time

import torch


class Stamped(torch.nn.Module):
    def forward(self, x):
        return x + time.time()


torch.export.export(Stamped(), (torch.randn(4),))
"""
