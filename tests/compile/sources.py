"""Files that compile their model (issue 31), shared by the CLI's and the server's tests.

Each sets Inductor's C++ compiler to one that does not exist: had a check run Inductor (loading the
file, or tracing it), the fused `relu(h) * 2 + 1` kernel would fail to build and the check would
say so; it must not.
"""

from __future__ import annotations

NO_INDUCTOR = """import torch
import torch._inductor.config
from torch import nn

torch._inductor.config.cpp.cxx = ("/nonexistent/cxx",)  # Inductor would fail: it must never run

"""

NET = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x)
        print("hidden", h.shape)
        if h.sum() > 0:
            return torch.relu(h) * 2 + 1
        return h - 1
"""
# the same Net with its print and no data-dependent branch
PRINT_NET = NET.replace(
    "        if h.sum() > 0:\n            return torch.relu(h) * 2 + 1\n        return h - 1\n",
    "        return torch.relu(h) * 2 + 1\n",
)
PRINT_AND_BRANCH = (
    NO_INDUCTOR
    + NET
    + """

model = torch.compile(Net())
out = model(torch.randn(2, 8))
"""
)
FULLGRAPH = PRINT_AND_BRANCH.replace("torch.compile(Net())", "torch.compile(Net(), fullgraph=True)")

BATCH_PINNED = (
    NO_INDUCTOR
    + """
class PerRow(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = torch.relu(self.fc(x)) * 2 + 1
        rows = [h[i] * (i + 1) for i in range(x.shape[0])]
        return torch.stack(rows)


model = PerRow()
model.compile()
y = model(torch.randn(2, 8))
"""
)


def line_of(text: str, needle: str) -> int:
    """0-based line of the first line containing `needle`."""
    return next(i for i, line in enumerate(text.splitlines()) if needle in line)


EXPORTED_AND_COMPILED = (
    NO_INDUCTOR
    + """
class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x)
        if h.sum() > 0:
            return torch.relu(h) * 2 + 1
        return h - 1


model = Gate()
fast = torch.compile(model)
y = fast(torch.randn(2, 8))
torch.export.export(model, (torch.randn(2, 8),))
"""
)


DECORATED_FORWARD = (
    NO_INDUCTOR
    + """
class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    @torch.compile(fullgraph=True)
    def forward(self, x):
        h = torch.relu(self.fc(x)) * 2 + 1
        print("head", h.shape)
        return h


model = Head()
out = model(torch.randn(2, 8))
"""
)


SEQUENCE_PINNED = (
    NO_INDUCTOR
    + """
class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 8)

    def forward(self, tokens):
        h = torch.relu(self.emb(tokens)) * 2 + 1
        steps = [h[:, t] * (t + 1) for t in range(tokens.shape[1])]
        return torch.stack(steps, 1)


model = torch.compile(Tagger())
out = model(torch.randint(0, 50, (2, 6)))
"""
)


FUNCTION_COMPILED = (
    NO_INDUCTOR
    + """
def step(x, scale):
    h = torch.relu(x) * scale + 1
    print("step", h.shape)
    return h * 2


fast_step = torch.compile(step)
out = fast_step(torch.randn(2, 8), 3.0)
"""
)


DECORATED_FUNCTION = (
    NO_INDUCTOR
    + """
@torch.compile(fullgraph=True)
def gate(x):
    h = torch.relu(x) * 2 + 1
    if h.sum() > 0:
        return h + 1
    return h - 1


if __name__ == "__main__":
    batch = torch.randn(2, 8)
    gate(batch)
"""
)


COMPILED_IN_MAIN = (
    NO_INDUCTOR
    + PRINT_NET
    + """

def main():
    model = torch.compile(Net())
    x = torch.randn(2, 8)
    with torch.no_grad():
        model(x)


if __name__ == "__main__":
    main()
"""
)


# pytorch/examples `mnist/main.py` `test()` as it is (indented as the tests' sources are, 4 spaces)
MNIST_TEST_FUNCTION = """    def test(model, device, test_loader):
        model.eval()
        test_loss = 0
        correct = 0
        with torch.no_grad():
            for data, target in test_loader:
                data, target = data.to(device), target.to(device)
                output = model(data)
                test_loss += F.nll_loss(output, target, reduction='sum').item()  # sum up batch loss
                pred = output.argmax(dim=1, keepdim=True)  # get the index of the max log-probability
                correct += pred.eq(target.view_as(pred)).sum().item()
"""
