"""Never an error that torch would not raise (issue 40, item 2), on the real worker through the CLI.

One workspace holds every way ExportLens itself fails to reach a verdict: example inputs that raise,
a NameError in them, a constructor that raises, a check that runs out of time through another
file's export call, a class two files export (the site is ambiguous: the first one is used) whose
inputs raise there, a part whose parent's inputs raise, a script's required command-line argument,
and the canonical training loop whose first call of the compiled model reads the loop's batch. Torch
refuses none of them: no finding is an error, and `exportlens check` does not exit 1 (3: a timeout
leaves a module undecided).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from tests.cli.test_cli import run_cli

NET = """
import torch
from torch import nn


class {name}(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        {body}
        return self.fc(x)
"""
FILES = {
    "raising.py": NET.format(name="Raising", body="x = x + 0")
    + """
    def example_inputs(self):
        return (torch.randn(3, 4) @ torch.randn(3, 4),)
""",
    "undefined.py": NET.format(name="Undefined", body="x = x + 0")
    + """
    def example_inputs(self):
        return (torch.randn(2, WIDTH),)
""",
    "init_raises.py": """
import torch
from torch import nn


class Configured(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.fc = nn.Linear(config["width"], 2)

    def forward(self, x):
        return self.fc(x)


if __name__ == "__main__":
    torch.export.export(Configured({"depth": 2}), (torch.randn(2, 8),))
""",
    # Strict dynamo unrolls the loop: far longer than the test's time limit.
    "slow_net.py": NET.format(name="SlowNet", body="for _ in range(50000):\n            x = x + 0"),
    "export_slow.py": """
import torch

from slow_net import SlowNet

if __name__ == "__main__":
    torch.export.export(SlowNet(), (torch.randn(2, 8),), strict=True)
""",
    "site_net.py": NET.format(name="SiteNet", body="x = x + 0"),
    "export_site_a.py": """
import torch

from site_net import SiteNet

if __name__ == "__main__":
    batch = torch.randn(3, 4) @ torch.randn(3, 4)
    torch.export.export(SiteNet(), (batch,))
""",
    "export_site_b.py": """
import torch

from site_net import SiteNet

if __name__ == "__main__":
    torch.export.export(SiteNet(), (torch.randn(2, 8),))
""",
    "blocks.py": NET.format(name="Inner", body="x = x + 0"),
    "parent.py": """
import torch
from torch import nn

from blocks import Inner


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def forward(self, x):
        return self.inner(x)


if __name__ == "__main__":
    torch.export.export(Outer(), (torch.randn(2, 8).view(3, -1),))
""",
    # A script's required argument: argparse exits, as ExportLens passes none.
    "with_args.py": """
import argparse

import torch

from site_net import SiteNet


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.parse_args()
    torch.export.export(SiteNet(), (torch.randn(2, 8),))


if __name__ == "__main__":
    main()
""",
    # The canonical training loop: the compiled model's first call reads the loop's batch.
    "train.py": """
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from site_net import SiteNet

loader = DataLoader(TensorDataset(torch.randn(16, 8), torch.randint(0, 2, (16,))), batch_size=4)
model = torch.compile(SiteNet())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for xb, yb in loader:
    loss = nn.functional.cross_entropy(model(xb), yb)
    loss.backward()
    opt.step()
""",
}
# What each failure is said as, where: ExportLens's own codes, never torch's refusals.
EXPECTED = {
    ("raising.py", "inputs-error", "information"),
    ("undefined.py", "inputs-error", "information"),
    ("init_raises.py", "module-init-error", "information"),
    ("slow_net.py", "export-timeout", "warning"),  # re-said from export_slow.py's call
    ("export_slow.py", "export-timeout", "warning"),
    ("export_site_a.py", "inputs-error", "information"),
    ("site_net.py", "inputs-error", "information"),  # through export_site_a.py, the first site
    ("parent.py", "inputs-error", "information"),
    ("with_args.py", "inputs-error", "information"),
}


def test_no_failure_of_exportlens_own_is_an_error(tmp_path: Path) -> None:
    for name, source in FILES.items():
        (tmp_path / name).write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
    done = run_cli(
        *sorted(FILES), "--root", ".", "--timeout", "3", "--no-cache", "--format", "json", cwd=tmp_path
    )
    assert done.returncode == 3, done.stdout[-3000:] + done.stderr  # undecided (the timeout), not 1
    report = json.loads(done.stdout)
    findings = [(f["path"], d) for f in report["files"] for d in f["diagnostics"]]
    said = {(Path(path).name, d["code"], d["severity"]) for path, d in findings}
    errors = {s for s in said if s[2] == "error"}
    assert not errors, errors
    assert EXPECTED <= said, EXPECTED - said
    (site,) = [d for path, d in findings if path == "site_net.py"]
    assert site["message"].startswith("Checking `SiteNet` with the inputs of export_site_a.py:7: ")
    assert [(r["path"], r["range"]["start"]) for r in site["related"]] == [
        ("export_site_a.py", {"line": 6, "character": 4})
    ]
