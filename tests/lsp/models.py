"""Sources the LSP tests open (dedented by the session helpers)."""

from __future__ import annotations

MLP = """
    import torch


    class MLP(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(16, 4)

        def forward(self, x):
            y = self.fc(x)
            return torch.relu(y)

        def example_inputs(self):  # real inputs: a guess alone never makes an error
            return (torch.randn(2, 16),)
"""
GUARDED = MLP.replace(
    "            return torch.relu(y)",
    "            if (y > 0).any():\n                return y\n            return torch.relu(y)",
)
DYNAMIC = (
    MLP
    + """

    if __name__ == "__main__":
        batch = torch.export.Dim("batch", min=2, max=64)
        torch.export.export(MLP(), (torch.randn(4, 16),), dynamic_shapes={"x": {0: batch}})
"""
)
NO_INPUTS = """
    import torch


    class Pair(torch.nn.Module):
        def forward(self, x, y):
            return x + y
"""
# A forward that never ends: the export is still running when the test looks.
SLOW = """
    import time

    import torch


    class Slow(torch.nn.Module):
        def example_inputs(self):
            return (torch.ones(2),)

        def forward(self, x):
            time.sleep(600)
            return x
"""


def counted(counter: str) -> str:
    """Two modules; A's example inputs append to `counter`, so re-exports of A can be counted."""
    return f"""
    import pathlib

    import torch


    class A(torch.nn.Module):
        def example_inputs(self):
            with open({counter!r}, "a") as out:
                out.write("A\\n")
            return (torch.ones(3),)

        def forward(self, x):
            return x * 2


    class B(torch.nn.Module):
        def example_inputs(self):
            return (torch.ones(3),)

        def forward(self, x):
            return x + 1
"""
