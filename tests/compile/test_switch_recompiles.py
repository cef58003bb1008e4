"""Recompiles from what a script switches between calls of its compiled model (issue 45 point 1):
`model.eval()`, a dtype, autocast. Real torch in the real worker, through the CLI.

The module of the first test is pytorch/examples' `mnist/main.py` `Net` as it is (two
`nn.Dropout`s; random init, one 28x28 image), compiled and switched to eval as its `test()` does.
Torch's verdict, by hand (torch 2.13.0, `TORCH_LOGS=recompiles`): the call after `model.eval()`
logs `Recompiling ... self._modules['dropout1'].training == True`; calling it in train mode again
recompiles no more (each mode is kept). No device change is made: the machine has no GPU.
The grad-mode tests run mnist's `test()` as it is (`model.eval()`, then `with torch.no_grad():`
around `output = model(data)`), called from a `main()` that compiles the model.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

from tests.cli.test_cli import run_cli
from tests.compile.sources import MNIST_TEST_FUNCTION
from tests.conftest import WORKER_PYTHON

MNIST_NET = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F


    class Net(nn.Module):
        def __init__(self):
            super(Net, self).__init__()
            self.conv1 = nn.Conv2d(1, 32, 3, 1)
            self.conv2 = nn.Conv2d(32, 64, 3, 1)
            self.dropout1 = nn.Dropout(0.25)
            self.dropout2 = nn.Dropout(0.5)
            self.fc1 = nn.Linear(9216, 128)
            self.fc2 = nn.Linear(128, 10)

        def forward(self, x):
            x = self.conv1(x)
            x = F.relu(x)
            x = self.conv2(x)
            x = F.relu(x)
            x = F.max_pool2d(x, 2)
            x = self.dropout1(x)
            x = torch.flatten(x, 1)
            x = self.fc1(x)
            x = F.relu(x)
            x = self.dropout2(x)
            x = self.fc2(x)
            output = F.log_softmax(x, dim=1)
            return output


    model = Net()
    compiled = torch.compile(model)
    output = compiled(torch.randn(1, 1, 28, 28))
    model.eval()
    output = compiled(torch.randn(1, 1, 28, 28))
    model.train()
    output = compiled(torch.randn(1, 1, 28, 28))
"""

MLP = """
    import torch
    import torch.nn as nn


    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(8, 16)
            self.fc2 = nn.Linear(16, 4)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x)))


    model = torch.compile(MLP())
    x = torch.randn(4, 8)
    y = model(x)
"""


def _recompiles(tmp_path: Path, source: str) -> tuple[list[str], list[dict[str, Any]]]:
    lines = textwrap.dedent(source).lstrip("\n")
    (tmp_path / "net.py").write_text(lines)
    out = run_cli("net.py", "--no-cache", "--format", "json", cwd=tmp_path, python=WORKER_PYTHON)
    assert out.returncode == 0, out.stdout + out.stderr
    found = [d for f in json.loads(out.stdout)["files"] for d in f["diagnostics"]]
    return lines.splitlines(), [d for d in found if d["code"] == "compile-recompile"]


def test_eval_switch_recompiles_on_the_dropout_line_that_reads_training(tmp_path: Path) -> None:
    lines, found = _recompiles(tmp_path, MNIST_NET)
    # one: switching back to train mode finds train mode's version kept
    assert [d["range"]["start"]["line"] for d in found] == [lines.index("        x = self.dropout1(x)")], (
        found
    )
    message = found[0]["message"]
    assert f"switches it to eval mode (`.eval()`, line {lines.index('model.eval()') + 1})" in message, message
    assert "self._modules['dropout1'].training == True" in message, message
    assert "recompile_limit" in message and "No torch setting removes it" in message, message
    assert "Proven" not in message  # nothing is advised that was not proven


def test_a_module_without_dropout_or_batch_norm_does_not_recompile_in_eval(tmp_path: Path) -> None:
    _lines, found = _recompiles(tmp_path, MLP + "    model.eval()\n    y = model(x)\n")
    assert found == []


def test_a_dtype_change_recompiles_on_the_line_that_makes_it(tmp_path: Path) -> None:
    lines, found = _recompiles(tmp_path, MLP + "    model.double()\n    y = model(x.double())\n")
    assert [d["range"]["start"]["line"] for d in found] == [lines.index("model.double()")], found
    assert "calls it in float64" in found[0]["message"], found
    assert "tensor 'x' dtype mismatch" in found[0]["message"], found


def test_autocast_recompiles_on_its_with_line(tmp_path: Path) -> None:
    extra = "    with torch.autocast('cpu', dtype=torch.bfloat16):\n        y = model(x)\n"
    lines, found = _recompiles(tmp_path, MLP + extra)
    with_line = lines.index("with torch.autocast('cpu', dtype=torch.bfloat16):")
    assert [d["range"]["start"]["line"] for d in found] == [with_line], found
    assert "under autocast (bfloat16)" in found[0]["message"], found
    assert "GLOBAL_STATE changed: autocast" in found[0]["message"], found


MNIST_TEST = (
    MNIST_NET.split("    model = Net()")[0]
    + """
"""
    + MNIST_TEST_FUNCTION
    + """

    def main():
        model = torch.compile(Net())
        loader = [(torch.randn(1, 1, 28, 28), torch.tensor([3]))]
        for epoch in range(1, 3):
            model.train()
            output = model(torch.randn(1, 1, 28, 28))
            test(model, "cpu", loader)


    if __name__ == "__main__":
        main()
"""
)


def test_mnists_evaluation_recompiles_once_on_its_no_grad_line(tmp_path: Path) -> None:
    """Torch's verdict, by hand (torch 2.13.0, `TORCH_LOGS=recompiles python net.py`): one recompile
    in the two epochs, `GLOBAL_STATE changed: grad_mode`; `model.eval()` made before the same call
    is part of that version (torch checks global state first), and epoch 2 reuses both versions.
    With a call between `.eval()` and the `no_grad()` call torch makes two: the dropout guard, then
    grad mode."""
    lines, found = _recompiles(tmp_path, MNIST_TEST)
    with_line = lines.index("    with torch.no_grad():")
    assert [d["range"]["start"]["line"] for d in found] == [with_line], found
    message = found[0]["message"]
    assert f"with grad mode off (`torch.no_grad()`, line {with_line + 1})" in message, message
    assert "GLOBAL_STATE changed: grad_mode" in message, message
    eval_line = lines.index("    model.eval()") + 1
    assert (
        f"after the script switches it to eval mode (`.eval()`, line {eval_line}) (one compile for both)"
        in message
    )
    assert "No torch setting removes it" in message and "Proven" not in message, message


def test_an_alias_passed_to_a_function_under_inference_mode_recompiles(tmp_path: Path) -> None:
    """Torch's verdict, by hand: `Recompiling ... GLOBAL_STATE changed: grad_mode` (the first
    call's inputs were made outside inference mode); `net.eval()` makes none (no dropout)."""
    extra = (
        "    def evaluate(m, batch):\n"
        "        m.eval()\n"
        "        with torch.inference_mode():\n"
        "            return m(batch)\n"
        "    net = model\n"
        "    y = evaluate(net, x)\n"
    )
    lines, found = _recompiles(tmp_path, MLP + extra)
    with_line = lines.index("    with torch.inference_mode():")
    assert [d["range"]["start"]["line"] for d in found] == [with_line], found
    assert "(`torch.inference_mode()`, line" in found[0]["message"], found
    assert "GLOBAL_STATE changed: grad_mode" in found[0]["message"], found


def test_eval_through_an_alias_recompiles_on_the_dropout_line(tmp_path: Path) -> None:
    source = (
        MNIST_NET.split("    model.eval()")[0]
        + "    net = compiled\n    net.eval()\n    output = net(torch.randn(1, 1, 28, 28))\n"
    )
    lines, found = _recompiles(tmp_path, source)
    assert [d["range"]["start"]["line"] for d in found] == [lines.index("        x = self.dropout1(x)")], (
        found
    )
    assert (
        f"switches it to eval mode (`.eval()`, line {lines.index('net.eval()') + 1})" in found[0]["message"]
    )
