"""Mode `both`: both tracers run; one diagnostic per culprit, naming who refused."""

from __future__ import annotations

from exportlens.engine import Engine
from tests.conftest import check, line_of


async def test_both_tracers_refuse_once_and_one_tracer_refuses_alone(engine: Engine, write) -> None:
    path = write(
        "both.py",
        """
        import time
        import torch

        class Branchy(torch.nn.Module):
            def forward(self, x):
                if x.sum() > 0:
                    return x
                return -x

            def example_inputs(self):
                return (torch.ones(3),)

        class Clock(torch.nn.Module):
            def forward(self, x):
                return x * time.time()

            def example_inputs(self):
                return (torch.ones(3),)
    """,
    )
    result = await check(engine, path, mode="both")
    statuses = {(m.name, m.mode): m.status for m in result.modules}
    assert statuses == {
        ("Branchy", "non-strict"): "failed",
        ("Branchy", "strict"): "failed",
        ("Clock", "non-strict"): "exported",
        ("Clock", "strict"): "failed",
    }
    branch = [d for d in result.diagnostics if d.module == "Branchy" and d.severity == "error"]
    assert len(branch) == 1, [(d.code, d.mode, d.message) for d in branch]
    assert branch[0].mode == "both" and branch[0].range.start.line == line_of(path, "if x.sum() > 0")
    clock = [d for d in result.diagnostics if d.module == "Clock" and d.severity == "error"]
    assert len(clock) == 1 and clock[0].mode == "strict"
    assert clock[0].range.start.line == line_of(path, "time.time()")
    assert "non-strict (fake tensors) exports this module" in clock[0].message


async def test_a_silent_warning_is_reported_once_in_mode_both(engine: Engine, write) -> None:
    path = write(
        "both_warn.py",
        """
        import torch

        class Dropper(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.drop = torch.nn.Dropout(0.5)

            def forward(self, x):
                return self.drop(x) * 2

        if __name__ == "__main__":
            torch.export.export(Dropper(), (torch.ones(3),))
    """,
    )
    result = await check(engine, path, mode="both")
    warnings = [d for d in result.diagnostics if d.code == "exported-in-training-mode"]
    assert len(warnings) == 1 and warnings[0].mode == "both", [(d.code, d.mode) for d in result.diagnostics]
    assert "refuse" not in warnings[0].message


async def test_each_tracer_refusing_elsewhere_is_said_exactly(engine: Engine, write) -> None:
    path = write(
        "both_apart.py",
        """
        import time
        import torch

        class Apart(torch.nn.Module):
            def forward(self, x):
                y = x * time.time()
                return torch.from_numpy(y.numpy())

            def example_inputs(self):
                return (torch.ones(3),)
    """,
    )
    result = await check(engine, path, mode="both")
    errors = {d.mode: d for d in result.diagnostics if d.severity == "error"}
    assert set(errors) == {"strict", "non-strict"}, [(d.code, d.mode) for d in result.diagnostics]
    clock, numpy = errors["strict"], errors["non-strict"]
    assert clock.range.start.line == line_of(path, "time.time()")
    assert numpy.range.start.line == line_of(path, "y.numpy()")
    assert "both tracers" not in clock.message + numpy.message
    assert (
        f"non-strict (fake tensors) refuses this module at line {numpy.range.start.line + 1}, "
        f"as `{numpy.code}`" in clock.message
    ), clock.message
    assert f"strict (dynamo) refuses this module at line {clock.range.start.line + 1}" in numpy.message
