"""What discovery finds a script switches between calls of a compiled model (issue 45 point 1;
discovery/compile_switches.py, compile_flow.py), without torch: `.eval()` / `.train()`, dtypes,
autocast, grad mode off; through aliases, the wrapped module and a function's parameters."""

from __future__ import annotations

import textwrap
from typing import Any

from exportlens.discovery import discover
from tests.compile.sources import MNIST_TEST_FUNCTION

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


def _switches(source: str) -> list[dict[str, Any]]:
    (subject,) = [s for s in discover(source, "net.py").subjects if s.compile is not None]
    assert subject.compile is not None
    return list(subject.compile.get("switches", []))


def test_the_scripts_switches_after_the_first_call_in_order_once_each() -> None:
    """`model.train(False)` and `model.eval()` leave it in the eval mode its first call saw, and no
    call follows the last `model.train()`: neither can recompile, so neither is made."""
    assert _switches(SCRIPT) == [
        {
            "kind": "autocast",
            "value": "bfloat16",
            "line": _line('with torch.autocast("cpu", dtype=torch.bfloat16):'),
            "call": True,
        },
        {"kind": "dtype", "value": "float64", "line": _line("model.double()"), "call": True},
        {
            "kind": "dtype",
            "value": "float16",
            "line": _line("out = fast(torch.randn(2, 8).half())"),
            "call": True,
        },
    ]


def test_a_script_that_switches_nothing_says_no_switches() -> None:
    plain = SCRIPT.split("model.train(False)")[0]
    (subject,) = [s for s in discover(plain, "net.py").subjects if s.compile is not None]
    assert subject.compile == {"fullgraph": False, "dynamic": None}


NET = SCRIPT.split("model = Net()")[0]


def test_a_switch_through_an_alias_or_the_wrapped_module_is_the_models() -> None:
    source = NET + textwrap.dedent(
        """
        model = Net()
        compiled = torch.compile(model)
        out = compiled(torch.randn(2, 8))
        net = compiled
        net.eval()
        out = net(torch.randn(2, 8))
        model.double()
        out = compiled(torch.randn(2, 8).double())
        """
    )
    lines = source.splitlines()
    assert _switches(source) == [
        {"kind": "mode", "value": "eval", "line": lines.index("net.eval()") + 1, "call": True},
        {"kind": "dtype", "value": "float64", "line": lines.index("model.double()") + 1, "call": True},
    ]


# pytorch/examples mnist/main.py's `test()` as it is, called from a `main()` that compiles the model
EVALUATE = NET + textwrap.dedent(
    """
"""
    + MNIST_TEST_FUNCTION
    + """

    def main():
        model = torch.compile(Net())
        output = model(torch.randn(2, 8))
        for epoch in range(1, 3):
            model.train()
            output = model(torch.randn(2, 8))
            test(model, "cpu", [(torch.randn(2, 8), torch.tensor([0, 1]))])


    if __name__ == "__main__":
        main()
    """
)


def test_a_functions_switches_are_made_at_its_call_on_its_own_lines() -> None:
    """`test(model, ...)` after the first call in `main()`: its `model.eval()` and `with
    torch.no_grad():` are one group (one call, as torch recompiles once), on test()'s lines; the
    second epoch is in states already called. `model.train()` before the model was ever switched is
    made and called once (the first call's mode is not known without running it)."""
    lines = EVALUATE.splitlines()
    assert _switches(EVALUATE) == [
        {"kind": "mode", "value": "train", "line": lines.index("        model.train()") + 1, "call": True},
        {"kind": "mode", "value": "eval", "line": lines.index("    model.eval()") + 1, "call": False},
        {
            "kind": "grad",
            "value": "no_grad()",
            "line": lines.index("    with torch.no_grad():") + 1,
            "call": True,
        },
    ]


def test_a_parameter_of_another_name_and_a_decorated_function_are_followed() -> None:
    """`def evaluate(m, ...)` passed the compiled model, and nanoGPT's `@torch.no_grad()` on a
    function: its calls run with grad mode off, on the decorator's line."""
    source = NET + textwrap.dedent(
        """
        def evaluate(m, batch):
            m.eval()
            return m(batch)


        @torch.no_grad()
        def estimate(m, batch):
            return m(batch)


        model = torch.compile(Net())
        out = model(torch.randn(2, 8))
        evaluate(model, torch.randn(2, 8))
        with torch.inference_mode():
            out = model(torch.randn(2, 8))
        estimate(m=model, batch=torch.randn(2, 8))
        with torch.set_grad_enabled(False):
            out = model(torch.randn(2, 8))
        """
    )
    lines = source.splitlines()
    assert _switches(source) == [
        {"kind": "mode", "value": "eval", "line": lines.index("    m.eval()") + 1, "call": True},
        {
            "kind": "grad",
            "value": "inference_mode()",
            "line": lines.index("with torch.inference_mode():") + 1,
            "call": True,
        },
        {"kind": "grad", "value": "no_grad()", "line": lines.index("@torch.no_grad()") + 1, "call": True},
        {
            "kind": "grad",
            "value": "set_grad_enabled(False)",
            "line": lines.index("with torch.set_grad_enabled(False):") + 1,
            "call": True,
        },
    ]


def test_a_global_model_is_followed_into_the_functions_that_read_it() -> None:
    """Compiled at the top level, first called in `main()`: `evaluate()` reads the global `model`."""
    source = NET + textwrap.dedent(
        """
        model = torch.compile(Net())


        def main():
            out = model(torch.randn(2, 8))
            evaluate()


        def evaluate():
            with torch.no_grad():
                return model(torch.randn(2, 8))


        if __name__ == "__main__":
            main()
        """
    )
    line = source.splitlines().index("    with torch.no_grad():") + 1
    assert _switches(source) == [{"kind": "grad", "value": "no_grad()", "line": line, "call": True}]
