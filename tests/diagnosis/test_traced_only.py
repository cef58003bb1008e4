"""Whether "your code raised" is true: the worker runs the module eagerly on the same inputs.

The distributions case is the shape of CleanRL's continuous-action `Agent.get_action_and_value`
(`Normal(action_mean, action_std)` in forward); the SymBool one is a dropout flag computed from a
dynamic batch size.
"""

from __future__ import annotations

from exportlens.engine import Engine
from tests.conftest import check, line_of
from tests.torch_versions import expected_for, version_of

CASES = """
    import torch
    import torch.nn as nn


    class Policy(nn.Module):
        def __init__(self):
            super().__init__()
            self.mu = nn.Linear(4, 2)
            self.log_std = nn.Parameter(torch.zeros(2))

        def forward(self, obs):
            mu = self.mu(obs)
            dist = torch.distributions.Normal(mu, self.log_std.exp())
            return dist.mean + dist.stddev

        def example_inputs(self):
            return (torch.randn(3, 4),)


    class FlagFromSize(nn.Module):
        def forward(self, x):
            return torch.nn.functional.dropout(x, p=0.1, training=x.shape[0] > 2)


    class OnlyPlainTensors(nn.Module):
        def forward(self, x):
            if type(x) is not torch.Tensor:
                raise TypeError("plain tensors only")
            return x * 2

        def example_inputs(self):
            return (torch.ones(3),)


    class RealBug(nn.Module):
        def forward(self, x):
            if x.shape[-1] != 5:
                raise ValueError("expected 5 features")
            return x

        def example_inputs(self):
            return (torch.ones(3),)


    if __name__ == "__main__":
        batch = torch.export.Dim("batch")
        torch.export.export(FlagFromSize().eval(), (torch.randn(3, 4),), dynamic_shapes=({0: batch},))
"""


async def test_eager_decides_whether_the_code_raised(engine: Engine, write) -> None:
    path = write("traced_only.py", CASES)
    result = await check(engine, path, mode="non-strict")
    found = {d.module: d for d in result.diagnostics if d.severity == "error"}
    # torch 2.15+ validate a distribution's arguments with a run-time assert: it exports
    validates = expected_for("Policy", "non-strict", version_of(engine), ("refused", None)) is not None
    assert set(found) == {"FlagFromSize", "OnlyPlainTensors", "RealBug"} | (
        {"Policy"} if validates else set()
    )
    if validates:
        policy = found["Policy"]
        assert policy.range.start.line == line_of(path, "torch.distributions.Normal(")
        assert "validate_args=False" in policy.message
    flag = found["FlagFromSize"]
    assert flag.code == "raised-only-when-traced"
    assert flag.range.start.line == line_of(path, "training=x.shape[0] > 2")
    assert "`train` got a traced `SymBool`" in flag.message and "keep that dim static" in flag.message
    plain = found["OnlyPlainTensors"]
    assert plain.code == "raised-only-when-traced", plain.message
    assert plain.range.start.line == line_of(path, 'raise TypeError("plain tensors only")')
    assert "eager runs these inputs without it" in plain.message
    bug = found["RealBug"]
    assert bug.code == "user-exception" and "the same exception happens in eager" in bug.message
