"""What discovery finds a script switches between calls of a compiled model (issue 45 point 1;
discovery/compile_switches.py), without torch: `.eval()` / `.train()`, dtypes, autocast."""

from __future__ import annotations

import textwrap

from exportlens.discovery import discover

SCRIPT = textwrap.dedent(
    """
    import torch
    import torch.nn as nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 8)

        def forward(self, x):
            return self.fc(x)

        def freeze(self):
            self.eval()  # a method's own switch is not the script's


    model = Net()
    model.eval()  # before the first call: what the first call sees, not a switch
    fast = torch.compile(model)
    out = fast(torch.randn(2, 8))
    model.train(False)
    model.eval()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = fast(torch.randn(2, 8))
    model.double()
    out = fast(torch.randn(2, 8).to(torch.float64))
    out = fast(torch.randn(2, 8).half())
    model.train()
    """
).lstrip("\n")


def _line(text: str) -> int:
    return SCRIPT.splitlines().index(text) + 1


def test_the_scripts_switches_after_the_first_call_in_order_once_each() -> None:
    (subject,) = [s for s in discover(SCRIPT, "net.py").subjects if s.compile is not None]
    assert subject.compile is not None
    assert subject.compile["switches"] == [
        {"kind": "mode", "value": "eval", "line": _line("model.train(False)")},
        {
            "kind": "autocast",
            "value": "bfloat16",
            "line": _line('with torch.autocast("cpu", dtype=torch.bfloat16):'),
        },
        {"kind": "dtype", "value": "float64", "line": _line("model.double()")},
        {"kind": "dtype", "value": "float16", "line": _line("out = fast(torch.randn(2, 8).half())")},
        {"kind": "mode", "value": "train", "line": _line("model.train()")},
    ]


def test_a_script_that_switches_nothing_says_no_switches() -> None:
    plain = SCRIPT.split("model.train(False)")[0]
    (subject,) = [s for s in discover(plain, "net.py").subjects if s.compile is not None]
    assert subject.compile == {"fullgraph": False, "dynamic": None}
