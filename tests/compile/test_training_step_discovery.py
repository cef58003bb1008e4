"""Which compiled functions run a training step themselves (discovery/training_step.py), without
torch: never run by the check, said so on the line (docs/codes.md#compile-not-checked)."""

from __future__ import annotations

import textwrap

from exportlens.discovery import discover

HEAD = """
import torch
import torch.optim as optim

net = torch.nn.Linear(4, 1)
opt = optim.SGD(net.parameters(), lr=0.1)
"""
CALLED = "fast = torch.compile(step)\nfast(torch.randn(2, 4))\n"


def _subject(body: str) -> dict[str, object]:
    source = textwrap.dedent(HEAD + body).lstrip("\n")
    (subject,) = [s for s in discover(source, "step.py").subjects if s.function == "step"]
    return subject.inputs


def test_a_function_calling_backward_is_not_checked_with_the_line() -> None:
    inputs = _subject(
        "\ndef step(x):\n    loss = net(x).sum()\n    loss.backward()\n    return loss\n\n"
        "step = torch.compile(step)\nstep(torch.randn(2, 4))\n"
    )
    assert (inputs["kind"], inputs["why"], inputs["line"], inputs["step"]) == (
        "none",
        "training-step",
        9,
        "loss.backward()",
    )


def test_an_optimizer_step_is_a_training_step_an_environments_step_is_not() -> None:
    inputs = _subject("\ndef step(x):\n    opt.step()\n    return x\n\n" + CALLED)
    assert (inputs["why"], inputs["step"]) == ("training-step", "opt.step()")
    inputs = _subject("\ndef step(x):\n    env.step(x)\n    return net(x)\n\n" + CALLED)
    assert inputs["kind"] == "compile-call"
