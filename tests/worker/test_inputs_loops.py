"""A loop's first pass as the worker runs it (worker/job/prelude.py), through the real worker: a
`break` / `continue` in the body before the call compiles; a pass that takes one never reaches the
call, and a loop with no first item never does: both are said, and no second pass runs."""

from __future__ import annotations

from exportlens.engine import Engine
from tests.conftest import check, only

NET = """
import torch

class Net(torch.nn.Module):
    def forward(self, x):
        return x * 2

"""


async def test_a_guard_that_does_not_leave_the_first_pass_compiles_and_runs(engine: Engine, write) -> None:
    path = write(
        "guard.py",
        NET
        + """
batches = [torch.ones(2, 3), torch.ones(4, 3)]
for i, xb in enumerate(batches):
    if xb is None:
        break
    if i > 0:
        continue
    ep = torch.export.export(Net(), (xb,))
""",
    )
    result = await check(engine, path)
    (module,) = result.modules
    assert (module.inputs, module.status) == ("export-call", "exported")
    assert result.diagnostics == []


async def test_a_first_pass_skipping_the_call_is_said_and_no_second_runs(engine: Engine, write) -> None:
    path = write(
        "skips.py",
        NET
        + """
batches = [torch.ones(2, 3), torch.ones(4, 3)]
for i, xb in enumerate(batches):
    if i == 0:
        continue
    ep = torch.export.export(Net(), (xb,))
""",
    )
    result = await check(engine, path)
    assert [m.status for m in result.modules] != ["exported"]
    finding = only(result, "inputs-error")
    assert "first pass of the loop on line 9 leaves it" in finding.message, finding.message


async def test_a_loop_with_no_first_item_is_said(engine: Engine, write) -> None:
    path = write(
        "empty.py",
        NET
        + """
model = torch.compile(Net())
for xb in []:
    out = model(xb)
""",
    )
    result = await check(engine, path)
    finding = only(result, "inputs-error")
    assert "the loop on line 9 has no first item" in finding.message, finding.message


async def test_the_inner_loop_left_is_the_one_named(engine: Engine, write) -> None:
    path = write(
        "inner.py",
        NET
        + """
for epoch in range(2):
    for i in range(3):
        if i == 0:
            break
        ep = torch.export.export(Net(), (torch.ones(2),))
""",
    )
    result = await check(engine, path)
    finding = only(result, "inputs-error")
    assert "first pass of the loop on line 9 leaves it" in finding.message, finding.message
