"""Model sources that several suites (and bench/) check, declared once.

Issue 26's scripts, for the engine's and the server's tests of covered classes
(tests/discovery/test_covered.py, tests/lsp/test_exported_class_server.py): `Net` has a
data-dependent `if`; each script exports it in a way only running can tell, or builds it
`.to(device)`. Indented as those tests write them (their `write` and `open` dedent).

Issue 27's workspace, for the CLI-vs-server test (tests/cli/test_cli_matches_server.py) and
bench/edit_path.py: `model.py` (GATE_MODEL) has no export call; `export_gate.py` beside it
exports its `Gate`.
"""

NET = """
    import torch
    import torch.nn as nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 8)

        def forward(self, x):
            y = self.fc(x)
            if y.sum() > 0:
                return y
            return -y
"""

# the script's top level builds `model = Net().to(device)` and exports it
TO_DEVICE = (
    NET
    + """

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Net().to(device)
    x = torch.randn(2, 8, device=device)
    torch.export.export(model, (x,))
"""
)

# after NET: what only running tells: the class exported, as what
RUNTIME_ONLY = {
    # a registry of constructors: only running tells what `create` returns
    "registry": """

    MODELS = {"small": lambda: Net()}


    def create(name):
        return MODELS[name]()


    if __name__ == "__main__":
        model = create("small").eval()
        torch.export.export(model, (torch.randn(2, 8),))
""",
    # a wrapper the script defines, exported through its attribute
    "wrapper": """

    if __name__ == "__main__":
        class Wrapper(nn.Module):
            def __init__(self, module):
                super().__init__()
                self.module = module

            def forward(self, x):
                return self.module(x)

        wrapped = Wrapper(Net())
        torch.export.export(wrapped.module, (torch.randn(2, 8),))
""",
}


GATE_MODEL = """
import torch


class Gate(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.lin = torch.nn.Linear(n, n)

    def forward(self, x):
        y = self.lin(x)
        if y.sum() > 0:
            return y
        return -y
"""
EXPORT_GATE = """
import torch

from model import Gate

if __name__ == "__main__":
    torch.export.export(Gate(16).eval(), (torch.randn(2, 16),))
"""
