"""Every other fix kind through the real server: proven in the worker, applied, re-checked."""

from __future__ import annotations

import pytest

from tests.fixes.conftest import apply_edit, pick, proven, resolve
from tests.lsp.conftest import Session, line_of
from tests.worker_torch import WorkerTorch, exec_source

DIMS = """
    import torch
    from torch.export import Dim


    class Flatten(torch.nn.Module):
        def forward(self, x):
            return x.reshape(8, 16)


    class Clip(torch.nn.Module):
        def forward(self, x):
            if x.shape[0] > 16:
                return x[:16]
            return x


    class Mix(torch.nn.Module):
        def forward(self, x, y):
            return x * y


    if __name__ == "__main__":
        batch, bx, by = Dim("batch"), Dim("bx"), Dim("by")
        torch.export.export(Flatten(), (torch.randn(8, 16),), dynamic_shapes={"x": {0: batch}})
        torch.export.export(Clip(), (torch.randn(8),), dynamic_shapes={"x": {0: batch}})
        torch.export.export(Mix(), (torch.randn(8), torch.randn(8)), dynamic_shapes={"x": {0: bx},
                                                                        "y": {0: by}})
"""
TINY = """
    import torch


    class Pair(torch.nn.Module):
        def forward(self, x, y):
            return x + y


    if __name__ == "__main__":
        bx = torch.export.Dim("bx")
        torch.export.export(
            Pair(), (torch.randn(1, 3), torch.randn(1, 3)), dynamic_shapes={"x": {0: bx}, "y": {0: bx}}
        )
"""
ITEM = """
    import torch


    class TopK(torch.nn.Module):
        def forward(self, x):
            count = x.nonzero().shape[0]
            if count > 3:
                return x.topk(3).values
            return x[:3]


    if __name__ == "__main__":
        torch.export.export(TopK(), (torch.randn(8),))
"""
SILENT = """
    import torch
    from torch import nn


    class Noisy(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(16, 4)
            self.drop = nn.Dropout(0.5)

        def forward(self, x):
            print("shape", x.shape)
            self.last = x * 2
            return self.drop(self.fc(x))


    if __name__ == "__main__":
        torch.export.export(Noisy(), (torch.randn(2, 16),))
"""
NO_INPUTS = """
    import torch


    class Pair(torch.nn.Module):
        def forward(self, x, y):
            return x * y + 1
"""


def codes(diagnostics: list) -> list:
    return sorted(str(d.code) for d in diagnostics)


async def test_dim_fixes_edit_declarations_and_dynamic_shapes(server: Session) -> None:
    before = await server.open("fx_dims.py", DIMS)
    uri, text = server.write("fx_dims.py", DIMS)
    assert {"dim-specialized", "dim-range-narrowed", "dims-must-be-equal"} <= set(codes(before))
    narrow = pick(await proven(server, uri, line_of(DIMS, "if x.shape[0] > 16")), "Dims: narrow `batch`")
    assert "(exports; matches eager)" in narrow.title and narrow.is_preferred
    static = pick(
        await proven(server, uri, line_of(DIMS, "x.reshape(8, 16)")), "Dims: make `batch` static (8)"
    )
    assert "(exports; matches eager)" in static.title
    share = pick(await proven(server, uri, line_of(DIMS, "return x * y")), "Dims: use the same Dim")
    assert "(exports; matches eager)" in share.title and share.is_preferred
    new = apply_edit(text, (await resolve(server, share)).edit, uri, 1)
    assert '"y": {0: bx}}' in new
    after = await server.wait_checked(uri, server.change(uri, new))
    assert "dims-must-be-equal" not in codes(after) and len(after) < len(before)


async def test_example_of_size_one_becomes_two(server: Session) -> None:
    before = await server.open("fx_tiny.py", TINY)
    uri, text = server.write("fx_tiny.py", TINY)
    assert "dim-example-too-small" in codes(before)
    line = next(d.range.start.line for d in before if d.code == "dim-example-too-small")
    fix = pick(await proven(server, uri, line), "Use an example of size 2")
    assert fix.title.endswith("(exports; matches eager)") and fix.is_preferred
    new = apply_edit(text, (await resolve(server, fix)).edit, uri, 1)
    assert "torch.randn(2, 3), torch.randn(2, 3)" in new
    assert codes(await server.wait_checked(uri, server.change(uri, new))) == []


async def test_torch_check_states_the_assumption_and_is_proven_on_the_example(server: Session) -> None:
    before = await server.open("fx_item.py", ITEM)
    uri, text = server.write("fx_item.py", ITEM)
    assert "data-dependent-guard" in codes(before)
    found = await proven(server, uri, line_of(ITEM, "if count > 3"))
    holds = pick(found, "Add torch._check(count > 3) before the `if` (assumes `count > 3` is always True)")
    assert "(exports; matches eager" in holds.title and holds.is_preferred
    wrong = pick(found, "Add torch._check(count <= 3)")
    assert "exports, but" in wrong.title and not wrong.is_preferred  # the example has 8 > 3 nonzeros
    cond = pick(found, "Rewrite as torch.cond")
    assert cond.title.endswith("(exports; matches eager on both branches)"), cond.title
    new = apply_edit(text, (await resolve(server, holds)).edit, uri, 1)
    assert codes(await server.wait_checked(uri, server.change(uri, new))) == []


@pytest.mark.filterwarnings("ignore:The tensor attribute self.last")
async def test_eval_print_guard_and_buffer(server: Session, worker_torch: WorkerTorch) -> None:
    before = await server.open("fx_silent.py", SILENT)
    uri, text = server.write("fx_silent.py", SILENT)
    assert {"exported-in-training-mode", "side-effect-baked", "tensor-attribute-not-buffer"} <= set(
        codes(before)
    )
    line = next(d.range.start.line for d in before if d.code == "exported-in-training-mode")
    evals = pick(await proven(server, uri, line), "Export in eval mode")
    assert evals.title.endswith("(exports; matches eager)") and evals.is_preferred
    guard = pick(await proven(server, uri, line_of(SILENT, "print(")), "Guard `print")
    assert guard.title.endswith("(exports; matches eager)")
    buffer = pick(await proven(server, uri, line_of(SILENT, "self.last")), "Register `self.last` as a buffer")
    # torch 2.13 drops a reassigned buffer too: the proof says so instead of preferring the fix
    assert "exports" in buffer.title and buffer.is_preferred == ("exports, but" not in buffer.title)
    new = apply_edit(text, (await resolve(server, evals)).edit, uri, 1)
    assert "torch.export.export(Noisy().eval()," in new
    after = await server.wait_checked(uri, server.change(uri, new))
    assert "exported-in-training-mode" not in codes(after) and len(after) < len(before)
    same = worker_torch.run(  # with the worker's torch: the eval-mode export matches eager
        exec_source(new, "noisy")
        + "import torch\n"
        + "module = ns_noisy['Noisy']().eval()\n"
        + "x = torch.randn(2, 16)\n"
        + "result = bool(torch.allclose(torch.export.export(module, (x,)).module()(x), module(x)))\n"
    )
    assert same is True


async def test_export_call_for_a_module_without_inputs(server: Session) -> None:
    before = await server.open("fx_noinputs.py", NO_INPUTS)
    uri, text = server.write("fx_noinputs.py", NO_INPUTS)
    assert codes(before) == ["no-example-inputs"]
    fix = pick(await proven(server, uri, before[0].range.start.line), "Add an export call")
    assert fix.title.endswith("(exports; matches eager)"), fix.title
    new = apply_edit(text, (await resolve(server, fix)).edit, uri, 1)
    after = await server.wait_checked(uri, server.change(uri, new))
    assert codes(after) == []


STATIC = """
    import torch


    class Clip(torch.nn.Module):
        def forward(self, x):
            if x.shape[0] > 16:
                return x[:16].reshape(-1, 4)
            return x.reshape(-1, 4) * 2


    if __name__ == "__main__":
        torch.export.export(Clip(), (torch.randn(8, 4),))
"""


async def test_make_a_dim_dynamic_with_the_range_torch_proves(server: Session) -> None:
    assert await server.open("fx_static.py", STATIC) == []
    uri, text = server.write("fx_static.py", STATIC)
    found = await proven(server, uri, line_of(STATIC, "torch.export.export"))
    dim0 = pick(found, "Make dim 0 of `x` dynamic")
    want = 'Make dim 0 of `x` dynamic: `Dim("x_dim0", max=16)`'
    assert dim0.title == f"{want} (exports with the range torch derived; matches eager)", dim0.title
    dim1 = pick(found, "Make dim 1 of `x` dynamic")
    assert "cannot be dynamic" in dim1.title and not dim1.is_preferred
    new = apply_edit(text, (await resolve(server, dim0)).edit, uri, 1)
    assert "from torch.export import Dim" in new
    assert 'dynamic_shapes={"x": {0: Dim("x_dim0", max=16)}}' in new
    assert await server.wait_checked(uri, server.change(uri, new)) == []
