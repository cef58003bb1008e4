"""The `executorch` target through the real worker with the pinned `executorch` (docs/targets.md):
lowered with XNNPACK, the `.pte` loaded and run by ExecuTorch's own runtime against eager. Issue 41's
model: `sort` has no kernel in the runtime (an error on its line), `cumsum` runs on a portable kernel
(a warning on its line), nothing on the delegated lines. Not skipped without executorch: the dev
extra pins it, so a missing one fails loudly."""

from __future__ import annotations

from pathlib import Path

from exportlens.check import CheckOptions, check_file
from exportlens.engine import Engine
from exportlens.findings import FileResult
from tests.conftest import line_of, only
from tests.custom_ops import scale_op
from tests.lowerings import not_installed_message

ISSUE_MODEL = """
    import torch

    class Ranked(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(8, 8)

        def forward(self, x):
            y = torch.relu(self.fc(x))
            y = torch.cumsum(y, dim=1)
            values, _ = {sort}
            return values

    torch.export.export(Ranked().eval(), (torch.randn(2, 8),))
"""
SORTED = ISSUE_MODEL.format(sort="torch.sort(y, dim=1)")
# The same values through topk (the runtime has aten::topk.values): the program loads and runs.
TOPK = ISSUE_MODEL.format(sort="torch.topk(y, y.shape[1], dim=1, largest=False)")

SCALED = """

class Scaled(torch.nn.Module):
    def forward(self, x):
        return scale(x) + 1

torch.export.export(Scaled().eval(), (torch.ones(3),))
"""

DELEGATED = """
    import torch
    from torch.export import Dim

    class MLP(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(8, 32)
            self.fc2 = torch.nn.Linear(32, 4)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x)))

    batch = Dim("batch", max=64)
    torch.export.export(MLP().eval(), (torch.randn(3, 8),), dynamic_shapes=({0: batch},))
"""


async def _check(engine: Engine, path: str) -> FileResult:
    options = CheckOptions(roots=[str(Path(path).parent)], lowerings=("export", "executorch"))
    return await check_file(engine, path, None, options)


def _executorch(result: FileResult) -> dict:  # type: ignore[type-arg]
    (module,) = result.modules
    (lowering,) = [t for t in module.lowerings if t["target"] == "executorch"]
    return lowering


async def test_sort_is_a_missing_kernel_and_cumsum_is_not_delegated_on_their_lines(
    engine: Engine, write
) -> None:
    path = write("ranked.py", SORTED)
    result = await _check(engine, path)
    missing = only(result, "executorch-missing-kernel")
    assert missing.severity == "error" and missing.range.start.line == line_of(path, "torch.sort(")
    assert missing.message.startswith("ExecuTorch: no kernel for `aten::sort.values` in the runtime")
    assert "Missing operator: aten::sort.values" in missing.message and "torch.topk(" in missing.message
    portable = only(result, "executorch-not-delegated")
    assert portable.severity == "warning" and portable.range.start.line == line_of(path, "torch.cumsum(")
    assert portable.message.startswith("ExecuTorch: `aten.cumsum.default` is not delegated")
    delegated_lines = {line_of(path, "torch.relu("), line_of(path, "self.fc = ")}
    assert not [d for d in result.diagnostics if d.range.start.line in delegated_lines]
    codes = sorted(d.code for d in result.diagnostics)
    assert codes == ["executorch-missing-kernel", "executorch-not-delegated"]
    lowering = _executorch(result)
    assert lowering["ok"] is False
    facts = lowering["facts"]
    assert facts["delegated_subgraphs"] == 1 and facts["backends"] == {"XnnpackBackend": 2}
    assert facts["delegated"] == "2/4 nodes"
    assert facts["portable_ops"] == ["aten.cumsum.default", "aten.sort.default"]
    assert facts["pte_bytes"] > 1000 and "numeric_checks" not in facts  # not loaded: nothing run


async def test_with_the_sort_rewritten_the_program_loads_and_its_numbers_match(engine: Engine, write) -> None:
    path = write("ranked.py", TOPK)
    result = await _check(engine, path)
    assert [d.code for d in result.diagnostics] == ["executorch-not-delegated"] * 2, result.diagnostics
    assert {d.range.start.line for d in result.diagnostics} == {
        line_of(path, "torch.cumsum("),
        line_of(path, "torch.topk("),
    }
    lowering = _executorch(result)
    assert lowering["ok"] is True and lowering["facts"]["numeric_checks"] == ["the example inputs"]


async def test_a_fully_delegated_program_has_no_finding_and_says_delegated_over_total(
    engine: Engine, write
) -> None:
    path = write("mlp.py", DELEGATED)
    result = await _check(engine, path)
    assert result.diagnostics == []
    lowering = _executorch(result)
    assert lowering["ok"] is True
    facts = lowering["facts"]
    assert facts["delegated"] == "3/3 nodes" and facts["portable_ops"] == []
    assert facts["numeric_checks"] == ["the example inputs", "size 4 of the dynamic dim 0 of `x`"]


async def test_without_executorch_installed_the_target_says_so_as_information(write, tmp_path: Path) -> None:
    message = await not_installed_message(tmp_path, "executorch", write("mlp.py", DELEGATED), "executorch")
    assert message == (
        "ExecuTorch: not checked: `executorch` is not installed in the checked interpreter: "
        "`pip install executorch`"
    )


FLOAT64 = """
    import torch

    class Double(torch.nn.Module):
        def forward(self, x):
            return torch.cumsum(x * 2, 0)

    torch.export.export(Double().eval(), (torch.randn(3, 8, dtype=torch.float64),))
"""


async def test_nothing_delegated_is_a_warning_on_the_module_and_the_line_says_why(
    engine: Engine, write
) -> None:
    path = write("double.py", FLOAT64)
    result = await _check(engine, path)
    none = only(result, "executorch-no-delegate")
    assert none.severity == "warning" and none.range.start.line == line_of(path, "class Double")
    line = only(result, "executorch-not-delegated")
    assert line.range.start.line == line_of(path, "torch.cumsum(")
    assert "`aten.mul.Tensor` (XNNPACK's partitioner refused it: invalid dtype)" in line.message
    assert "`aten.cumsum.default` (XNNPACK has no support for it)" in line.message
    lowering = _executorch(result)
    assert lowering["ok"] is True and lowering["facts"]["delegated_subgraphs"] == 0


async def test_a_custom_op_without_an_out_variant_is_refused_by_to_executorch_on_its_line(
    engine: Engine, write
) -> None:
    path = write("scaled.py", scale_op("el_et") + SCALED)
    result = await _check(engine, path)
    refused = only(result, "executorch-emit-error")
    assert refused.severity == "error" and refused.range.start.line == line_of(path, "return scale(x) + 1")
    assert refused.message.startswith(
        "ExecuTorch: `to_executorch` refused the program at `el_et.scale.default` (RuntimeError: Missing "
        "out variants: {'el_et::scale'})"
    )
    assert [d.code for d in result.diagnostics] == ["executorch-emit-error"]


INT_AND_KWARG = """
    import torch

    class Scaled(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(8, 4)

        def forward(self, x, n: int, *, bias=None):
            y = self.fc(x) * n
            return y + bias if bias is not None else y

    torch.export.export(Scaled().eval(), (torch.randn(2, 8), 3), {"bias": torch.randn(4)})
"""


async def test_an_int_and_a_keyword_input_reach_the_pte_in_order(engine: Engine, write) -> None:
    path = write("scaled.py", INT_AND_KWARG)
    result = await _check(engine, path)
    lowering = _executorch(result)
    assert lowering["ok"] is True and lowering["facts"]["numeric_checks"] == ["the example inputs"]
    # torch 2.13 + executorch 1.5.1: the int becomes a tensor whose dtype copy XNNPACK refuses
    copy = only(result, "executorch-not-delegated")
    assert copy.range.start.line == line_of(path, "y = self.fc(x) * n")
    assert (
        "(a dtype or memory-format copy, `.to()`; XNNPACK's partitioner refused it: invalid dtype)"
        in copy.message
    )


UNBOUNDED = """
    import torch
    from torch.export import Dim

    class Grow(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(8, 8)

        def forward(self, x):
            return torch.relu(self.fc(x))

    torch.export.export(Grow().eval(), (torch.randn(3, 8),), dynamic_shapes=({0: Dim("n")},))
"""


async def test_a_dim_without_a_max_is_refused_by_the_runtime_at_its_second_size(
    engine: Engine, write
) -> None:
    path = write("grow.py", UNBOUNDED)
    result = await _check(engine, path)
    refused = only(result, "executorch-run-error")
    assert refused.severity == "error" and refused.range.start.line == line_of(path, "class Grow")
    assert refused.message.startswith(
        "ExecuTorch: the runtime refuses size 4 of the dynamic dim 0 of `x`, inside the dim's range, that "
        "torch.export accepts (RuntimeError: method->set_inputs() for method 'forward' failed"
    )
    assert "Give the dim a `max` in `dynamic_shapes`" in refused.message
    assert _executorch(result)["facts"]["numeric_checks"] == ["the example inputs"]
