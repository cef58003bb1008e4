"""A `.pte` loaded by the check keeps its program alive while the method runs (executorch_run.Loaded).

ExecuTorch's Python `Method` does not hold its `Program`; `load_program(b).load_method("forward")`
drops the program at once, and later runs read freed memory: in executorch 1.5.1 about half of such
runs failed with "Attempted to resize a static tensor. Expected shape (21946, 1936353664, ...)" or a
segfault, which made a numeric mismatch lose its blamed line in CI. Run here after the garbage
collector and fresh allocations had every chance to reuse what a dropped program held.
"""

from __future__ import annotations

import gc

import torch
import torch.nn.functional as F
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
from executorch.exir import to_edge_transform_and_lower

from exportlens.worker.lowering.executorch_load import load


class Resize(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 8, 3, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.interpolate(self.conv(x), scale_factor=0.5, mode="bilinear", align_corners=False)


def test_a_loaded_method_runs_right_after_its_program_could_be_collected() -> None:
    module, x = Resize().eval(), torch.randn(1, 4, 16, 16)
    program = torch.export.export(module, (x,))
    want = module(x)
    for _ in range(6):
        loaded, said = load(
            to_edge_transform_and_lower(program, partitioner=[XnnpackPartitioner()]).to_executorch().buffer
        )
        assert loaded is not None, said
        gc.collect()
        litter = [bytearray(4096) for _ in range(2000)]  # reuse what a dropped program freed
        (got,) = loaded.execute([x])
        del litter
        torch.testing.assert_close(got, want, rtol=1e-3, atol=1e-4)
