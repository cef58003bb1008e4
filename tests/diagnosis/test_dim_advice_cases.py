"""Advice that is right for the case (issue 26, item 7), through the real worker, on code of the
shapes seen in public models:
- `batch_size = len(x)`: the fix is `x.shape[0]`, not "derive the size from the input";
- a Dim the user declared dynamic: what keeps it dynamic comes first, static last;
- a fixed-size tensor of the module's own (a position table) meets the Dim: no "give the other
  operand the same Dim", and the minimum the Dim needs anyway (a conv's kernel: `T >= 6`);
- both tracers refuse, at different lines: no "or use strict mode" / "or export non-strict", and
  no "only strict stops here" beside a finding both tracers share.
"""

from __future__ import annotations

from pathlib import Path

from exportlens.check import CheckOptions, check_file
from exportlens.engine import Engine
from tests.conftest import check, line_of


async def test_len_of_the_input_is_fixed_by_reading_its_shape(engine: Engine, write) -> None:
    path = write(
        "head.py",
        """
        import torch
        from torch import nn
        from torch.export import Dim

        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(16, 4)

            def forward(self, x):
                batch_size = len(x)
                return self.fc(x.view(batch_size, -1))

        torch.export.export(Head(), (torch.randn(4, 4, 4),), dynamic_shapes=({0: Dim("batch")},))
        """,
    )
    result = await check(engine, path, mode="both")
    (finding,) = [d for d in result.diagnostics if d.severity == "error"]
    assert finding.code == "dim-specialized" and finding.range.start.line == line_of(path, "len(x)")
    assert "write `x.shape[0]` instead of `len(x)`" in finding.message
    fix = finding.message.split("Fix: ", 1)[1]
    assert fix.index("x.shape[0]") < fix.index("make `batch` static")
    assert "derive the size" not in finding.message and "follows the input" not in finding.message
    assert "strict (dynamo) exports this module" in finding.message  # dynamo keeps len() symbolic


async def test_a_modules_own_table_gets_no_dim_and_the_minimum_is_said(engine: Engine, write) -> None:
    path = write(
        "tcn.py",
        """
        import torch
        from torch import nn
        from torch.export import Dim

        class TemporalEncoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv1d(8, 8, kernel_size=6)
                self.pos = nn.Parameter(torch.zeros(1, 8, 15))

            def forward(self, x):
                y = self.conv(x)
                return y + self.pos

        torch.export.export(TemporalEncoder(), (torch.randn(2, 8, 20),), dynamic_shapes=({2: Dim("T")},))
        """,
    )
    options = CheckOptions(mode="both", roots=[str(Path(path).parent)], all_failures=False)
    result = await check_file(engine, path, None, options)
    (finding,) = [d for d in result.diagnostics if d.severity == "error"]
    assert finding.code == "dim-specialized" and finding.range.start.line == line_of(path, "y + self.pos")
    assert "other operand" not in finding.message
    assert "make `self.pos` in `y + self.pos` follow the input's size" in finding.message
    assert '(from 6 up: `T = Dim("T", min=6)`)' in finding.message
    fix = finding.message.split("Fix: ", 1)[1]
    assert fix.index("self.pos") < fix.index("make `T` static")


async def test_no_other_tracer_is_offered_where_it_refuses_too(engine: Engine, write) -> None:
    path = write(
        "scaled.py",
        """
        import time
        import torch

        class Scaled(torch.nn.Module):
            def forward(self, x):
                scale = float(x.abs().max())
                stamp = time.time()
                return x / scale + stamp

            def example_inputs(self):
                return (torch.ones(3),)
        """,
    )
    # Each tracer's first failure only: the search for later ones retraces non-strict.
    options = CheckOptions(mode="both", roots=[str(Path(path).parent)], all_failures=False)
    result = await check_file(engine, path, None, options)
    errors = {d.code: d for d in result.diagnostics if d.severity == "error"}
    scalar, clock = errors["tensor-to-python-scalar"], errors["untraceable-call"]
    assert scalar.mode == "non-strict" and clock.mode == "strict"
    assert "strict mode" not in scalar.message and "export non-strict" not in clock.message
    # each says where the other tracer stopped, without claiming it passes this line
    assert f"refuses this module at line {line_of(path, 'time.time()') + 1}" in scalar.message
    assert f"refuses this module at line {line_of(path, 'float(') + 1}" in clock.message
    assert "seen in strict (dynamo) only" in clock.message and "stops here" not in clock.message
