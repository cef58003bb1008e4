"""Silent corruption seen in the graph: train-mode dropout / batch-norm, in-place writes to inputs."""

from __future__ import annotations

import pytest

from exportlens.engine import Engine
from tests.conftest import check, line_of

from .test_silent_side_effects import at, by_line

TRAIN_MODE = """
    import torch
    import torch.nn.functional as F
    from torch import nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 8)
            self.drop = nn.Dropout(0.1)
            self.bn = nn.BatchNorm1d(8)

        def forward(self, x):
            h = self.drop(self.fc(x))
            h = self.bn(h)
            return F.dropout(h, 0.2)


    if __name__ == "__main__":
        torch.export.export(Net(){suffix}, (torch.randn(4, 8),))
"""


@pytest.mark.parametrize("mode", ["non-strict", "strict"])
async def test_training_mode_layers_are_warned(engine: Engine, write, mode: str) -> None:
    path = write(f"train_{mode}.py", TRAIN_MODE.replace("{suffix}", ""))
    result = await check(engine, path, mode=mode)
    found = result.diagnostics
    assert {f.code for f in found} == {"exported-in-training-mode"}, found

    # On the line that builds each layer (issue 26 item 9; was the line that calls it), the export
    # call where `.eval()` goes and the call as related information.
    dropout = by_line(found, path, "nn.Dropout(0.1)")
    at(path, dropout, "self.drop = nn.Dropout(0.1)", "nn.Dropout(0.1)")
    assert ".eval()" in dropout.message and dropout.fix == {"kind": "call-eval", "layers": ["drop"]}
    assert "exported in training mode with `Net`" in dropout.message, dropout.message  # the class
    related = {(r.range.start.line, r.message.split(":")[0]) for r in dropout.related}
    eval_here = "Call `.eval()` on the model before `torch.export.export`"
    assert related == {
        (line_of(path, "torch.export.export(Net()"), eval_here),
        (line_of(path, "self.drop(self.fc(x))"), "called here, in training mode"),
    }, dropout.related

    batch_norm = by_line(found, path, "nn.BatchNorm1d(8)")
    at(path, batch_norm, "self.bn = nn.BatchNorm1d(8)", "nn.BatchNorm1d(8)")
    assert batch_norm.fix == {"kind": "call-eval", "layers": ["bn"]}

    functional = by_line(found, path, "F.dropout(h, 0.2)")
    at(path, functional, "F.dropout(h, 0.2)")
    assert "training=self.training" in functional.message and "in `Net`" in functional.message
    assert len(found) == 3


async def test_eval_mode_keeps_only_the_functional_default(engine: Engine, write) -> None:
    path = write("eval.py", TRAIN_MODE.replace("{suffix}", ".eval()"))
    result = await check(engine, path, mode="non-strict")
    (finding,) = result.diagnostics
    assert finding.code == "exported-in-training-mode"
    assert finding.range.start.line == line_of(path, "F.dropout(h, 0.2)")


@pytest.mark.parametrize("mode", ["non-strict", "strict"])
async def test_in_place_writes_to_inputs_are_warned(engine: Engine, write, mode: str) -> None:
    path = write(
        f"mutates_{mode}.py",
        """
        import torch


        class Mutates(torch.nn.Module):
            def forward(self, x, y):
                x.add_(1)
                y[0] = 0.0
                z = x.clone()
                z.mul_(2)
                return z + y


        if __name__ == "__main__":
            torch.export.export(Mutates(), (torch.randn(3), torch.randn(3)))
    """,
    )
    result = await check(engine, path, mode=mode)
    found = result.diagnostics
    assert {f.code for f in found} == {"input-mutated"} and len(found) == 2, found
    added = by_line(found, path, "x.add_(1)")
    at(path, added, "x.add_(1)")
    assert added.fix == {"kind": "out-of-place", "input": "x", "op": "aten.add_.Tensor"}
    assigned = by_line(found, path, "y[0] = 0.0")
    at(path, assigned, "y[0] = 0.0")
    assert assigned.fix is not None and assigned.fix["input"] == "y"
