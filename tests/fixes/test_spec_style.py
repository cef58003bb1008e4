"""Fixes in the dynamic-shapes API the file uses: the spec API (`ShapesSpec`, `ShapeVar`) where it uses
it, `Dim` elsewhere (tests/fixes/test_kinds_server.py); proven by re-export in the worker.

The spec API is torch 2.14+'s (`torch.export.export(..., dynamic_shapes=ShapesSpec(...))`): on an
older worker torch these files cannot export at all, and the tests say so instead of running.
"""

from __future__ import annotations

import pytest

from exportlens.diagnosis.spec_shapes import bound_for
from tests.fixes.conftest import apply_edit, errors, pick, proven, resolve
from tests.lsp.conftest import Session, line_of
from tests.worker_torch import WorkerTorch

SPEC_CLIP = """
    import torch
    from torch.fx.experimental.dynamic_spec import ParamsSpec, ShapesSpec, ShapeVar, TensorSpec


    class Clip(torch.nn.Module):
        def forward(self, x):
            if x.shape[0] > 16:
                return x[:16]
            return x * 2


    if __name__ == "__main__":
        batch = ShapeVar("batch")
        spec = ShapesSpec(params=ParamsSpec({"x": TensorSpec([batch])}))
        torch.export.export(Clip(), (torch.randn(8),), dynamic_shapes=spec)
"""

SPEC_STATIC = """
    import torch
    from torch.fx.experimental.dynamic_spec import ParamsSpec, ShapesSpec, ShapeVar, TensorSpec


    class Scale(torch.nn.Module):
        def forward(self, x):
            return x * 2


    class Shift(torch.nn.Module):
        def forward(self, x):
            return x.reshape(-1, 4) + 1


    if __name__ == "__main__":
        n = ShapeVar("n")
        scaled = ShapesSpec(params=ParamsSpec({"x": TensorSpec([n])}))
        torch.export.export(Scale(), (torch.randn(8),), dynamic_shapes=scaled)
        torch.export.export(Shift(), (torch.randn(8, 4),))
"""


@pytest.fixture
def spec_api(worker_torch: WorkerTorch) -> None:
    takes = worker_torch.run(
        "import inspect, torch.export\nresult = 'ShapesSpec' in inspect.getsource(torch.export.export)\n"
    )
    if not takes:
        pytest.skip("the worker's torch has no spec API in torch.export (2.14+)")


async def test_a_shape_test_on_a_shapevar_is_a_narrowed_range_fixed_by_bounding_it(
    server: Session, spec_api: None
) -> None:
    before = await server.open("fx_spec_clip.py", SPEC_CLIP)
    uri, text = server.write("fx_spec_clip.py", SPEC_CLIP)
    (finding,) = before
    line = line_of(SPEC_CLIP, "if x.shape[0] > 16")
    assert finding.code == "dim-range-narrowed" and finding.range.start.line == line
    assert "`batch` is a ShapeVar" in finding.message and "torch suggests" not in finding.message
    fix = pick(await proven(server, uri, line), "Dims: narrow `batch`")
    assert fix.title.startswith(
        "Dims: narrow `batch`: `batch = ShapeVar('batch', max=16)` (as the example is)"
    )
    assert fix.title.endswith("(exports; matches eager)"), fix.title
    new = apply_edit(text, (await resolve(server, fix)).edit, uri, 1)
    assert "batch = ShapeVar('batch', max=16)" in new and "Dim" not in new
    assert errors(await server.wait_checked(uri, server.change(uri, new))) == []


async def test_make_dynamic_writes_the_spec_api_in_a_file_that_uses_it(
    server: Session, spec_api: None
) -> None:
    assert errors(await server.open("fx_spec_static.py", SPEC_STATIC)) == []
    uri, text = server.write("fx_spec_static.py", SPEC_STATIC)
    found = await proven(server, uri, line_of(SPEC_STATIC, "torch.export.export(Shift()"))
    dim0 = pick(found, "Make dim 0 of `x` dynamic")
    assert dim0.title.startswith('Make dim 0 of `x` dynamic: `TensorSpec([ShapeVar("x_dim0"), None])`')
    assert dim0.title.endswith("(exports; matches eager)"), dim0.title
    new = apply_edit(text, (await resolve(server, dim0)).edit, uri, 1)
    spec = 'dynamic_shapes=ShapesSpec(params=ParamsSpec({"x": TensorSpec([ShapeVar("x_dim0"), None])}))'
    assert spec in new and "Dim" not in new
    assert errors(await server.wait_checked(uri, server.change(uri, new))) == []


@pytest.mark.parametrize(
    ("op", "n", "size", "bound"),
    [
        (">", 16, 8, ("max", 16)),
        (">", 16, 20, ("min", 17)),
        (">=", 16, 8, ("max", 15)),
        (">=", 16, 16, ("min", 16)),
        ("<", 4, 8, ("min", 4)),
        ("<", 4, 2, ("max", 3)),
        ("<=", 4, 8, ("min", 5)),
        ("<=", 4, 4, ("max", 4)),
    ],
)
def test_the_bound_decides_the_test_as_the_example_does(
    op: str, n: int, size: int, bound: tuple[str, int]
) -> None:
    assert bound_for(op, n, size) == bound
    key, value = bound
    decided = {">": lambda s: s > n, ">=": lambda s: s >= n, "<": lambda s: s < n, "<=": lambda s: s <= n}[op]
    allowed = range(value, value + 50) if key == "min" else range(0, value + 1)
    assert {decided(s) for s in allowed} == {decided(size)}  # every allowed size: the example's answer
