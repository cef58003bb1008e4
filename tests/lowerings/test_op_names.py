"""How a lowering names a node's op (worker/lowering/nodes.py `op_name`): as torch prints it, once
with its overload, for torch's OpOverloads and ExecuTorch's edge ops alike."""

from __future__ import annotations

import pytest

from exportlens.worker.lowering.nodes import op_name


@pytest.mark.slow  # imports torch and executorch
def test_an_op_is_named_with_its_overload_once() -> None:
    import torch
    from executorch.exir.dialects._ops import ops

    assert op_name(torch.ops.aten.relu.default) == "aten.relu.default"
    assert op_name(torch.ops.aten.add.Tensor) == "aten.add.Tensor"  # `_name` is `aten::add.Tensor`
    assert op_name(torch.ops.aten.sort.values) == "aten.sort.values"
    assert op_name(ops.edge.aten.mul.Tensor) == "aten.mul.Tensor"
    assert op_name(torch.ops.higher_order.cond) == "cond"
