"""Later failures are errors only when the real export surely gets there; the rest are possible."""

from __future__ import annotations

from exportlens.engine import Engine
from tests.conftest import check, line_of

LATER = """
    import torch


    class Later(torch.nn.Module):
        def forward(self, x):
            n = x.nonzero().shape[0]
            if n > 2:
                x = x * 2
                if x.max() > 5:
                    x = x / 2
            y = torch.zeros(n)
            if y.shape[0] % 2 == 0:
                x = x + 1
            if x.sum() > 0:
                x = x - 1
            return x

        def example_inputs(self):
            return (torch.ones(6),)
"""


async def test_later_failures_that_hang_on_the_first_are_possible(engine: Engine, write) -> None:
    path = write("later.py", LATER)
    result = await check(engine, path, mode="non-strict")
    by_line = {d.range.start.line: d for d in result.diagnostics}
    first = by_line[line_of(path, "if n > 2:")]
    assert first.severity == "error"
    # inside the first's branch, but no fix of the first keeps the export from getting there
    inside = by_line[line_of(path, "if x.max() > 5:")]
    assert (inside.code, inside.severity) == ("data-dependent-branch", "error")
    same_value = by_line[line_of(path, "if y.shape[0] % 2 == 0:")]
    assert (same_value.code, same_value.severity) == ("possible-later-failure", "information")
    assert "same data-dependent value" in same_value.message
    independent = by_line[line_of(path, "if x.sum() > 0:")]
    assert (independent.code, independent.severity) == ("data-dependent-branch", "error")


SCALAR = """
    import torch


    class Scaled(torch.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                x = x * 2
            scale = float(x.abs().max())
            {after}
            return x

        def example_inputs(self):
            return (torch.randn(6),)
"""


async def test_a_later_failure_is_strict_only_where_dynamo_stops(engine: Engine, write) -> None:
    """The search retraces non-strict, which stops at `float()` of a tensor; dynamo keeps that value
    symbolic (torch 2.13: strict exports `x / scale`, and refuses the `if scale > 1.0` after it)."""
    branch = write(
        "scaled_branch.py", SCALAR.replace("{after}", "if scale > 1.0:\n                x = x / scale")
    )
    found = {
        (d.range.start.line, d.code, d.mode) for d in (await check(engine, branch, mode="both")).diagnostics
    }
    assert found == {
        (line_of(branch, "if x.sum() > 0:"), "data-dependent-branch", "both"),
        (line_of(branch, "scale = float("), "tensor-to-python-scalar", "non-strict"),
        (line_of(branch, "if scale > 1.0:"), "data-dependent-guard", "strict"),
    }, found
    divided = write("scaled_divided.py", SCALAR.replace("{after}", "x = x / scale"))
    found = {
        (d.range.start.line, d.code, d.mode) for d in (await check(engine, divided, mode="both")).diagnostics
    }
    assert found == {
        (line_of(divided, "if x.sum() > 0:"), "data-dependent-branch", "both"),
        (line_of(divided, "scale = float("), "tensor-to-python-scalar", "non-strict"),  # not "both"
    }, found
