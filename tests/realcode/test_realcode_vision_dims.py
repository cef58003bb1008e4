"""Dims on the image sides of public vision models (issue 26, item 3), in `--mode both`: each
tracer's refusal on the line that causes it, and advice that keeps the sides dynamic first.

- DINOv2's patch embedding asserts multiples of the patch size: `height` and `width` alike;
- DINOv2 on a square example takes `if npatch == N and w == h`, which leaves one size;
- BasicSR's x2 RRDBNet pixel-unshuffles, asserting even sides;
- EfficientNet's SAME padding goes through `math.ceil(ih / sh)`: every size passes its test, but
  torch proves it only for multiples of the stride.
"""

from __future__ import annotations

from pathlib import Path

from exportlens.check import CheckOptions, check_file
from exportlens.engine import Engine
from exportlens.findings import FileResult, Finding
from tests.realcode_expected import CORPUS, EXPORTS, Export

_RESULTS: dict[str, FileResult] = {}


async def _both(engine: Engine, case: str) -> FileResult:
    if case not in _RESULTS:
        path = CORPUS / case / f"export_{case}.py"
        options = CheckOptions(mode="both", roots=[str(path.parent)], all_failures=False)
        _RESULTS[case] = await check_file(engine, str(path), None, options)
    return _RESULTS[case]


def _export(case: str, needle: str) -> Export:
    (export,) = [e for e in EXPORTS if e.case == case and needle in e.needle]
    return export


def _errors(result: FileResult, export: Export) -> list[Finding]:
    names = {m.name for m in result.modules if m.line == export.call_line}
    return [d for d in result.diagnostics if d.module in names and d.severity == "error"]


def _on_culprit(result: FileResult, export: Export) -> Finding:
    """The module's one error: both tracers', on torch's culprit line."""
    truth = export.strict
    assert truth is not None and export.non_strict == truth
    errors = _errors(result, export)
    where = [(d.code, d.mode, Path(d.path).name, d.range.start.line + 1) for d in errors]
    assert len(errors) == 1, where
    (finding,) = errors
    culprit = (str((CORPUS / export.case / truth.path).resolve()), truth.line(export.case))
    assert (str(Path(finding.path).resolve()), finding.range.start.line) == culprit, where
    assert finding.mode == "both" and finding.code == truth.code, where
    assert "both tracers refuse" in finding.message
    return finding


def _before(message: str, first: str, then: str) -> bool:
    return first in message and then in message and message.index(first) < message.index(then)


async def test_dinov2_patch_multiples_name_both_sides(engine: Engine) -> None:
    result = await _both(engine, "dinov2")
    finding = _on_culprit(result, _export("dinov2", 'Dim("height")'))
    assert "`height` and `width` must be multiples of 14" in finding.message
    assert '`height = 14 * Dim("_height")`, `width = 14 * Dim("_width")`' in finding.message


async def test_dinov2_square_example_is_put_on_the_branch_that_leaves_one_size(engine: Engine) -> None:
    result = await _both(engine, "dinov2")
    finding = _on_culprit(result, _export("dinov2", 'Dim("h")'))
    assert "`npatch == N and w == h` takes a branch that holds only for 56" in finding.message
    # what keeps the sides dynamic first, static last; no Dim to give a module's own tensor
    assert _before(finding.message, "export with an example size for which", "make `h` and `w` static")
    assert "other operand" not in finding.message


async def test_dinov2_exports_stay_clean(engine: Engine) -> None:
    result = await _both(engine, "dinov2")
    for needle in ("torch.export.export(model, (images,))", "dynamic_shapes=((patches,),)"):
        assert _errors(result, _export("dinov2", needle)) == []


async def test_basicsr_pixel_unshuffle_asks_for_even_sides(engine: Engine) -> None:
    result = await _both(engine, "basicsr")
    finding = _on_culprit(result, _export("basicsr", 'dynamic_shapes=({2: Dim("h")'))
    assert "`h` and `w` must be multiples of 2" in finding.message
    assert '`h = 2 * Dim("_h")`, `w = 2 * Dim("_w")`' in finding.message


async def test_efficientnet_same_padding_is_provable_for_multiples_of_the_stride(engine: Engine) -> None:
    result = await _both(engine, "efficientnet")
    finding = _on_culprit(result, _export("efficientnet", 'Dim("h"), 3: Dim("w")'))
    # Not "narrow the Dim": every size passes; torch just cannot prove it for a plain Dim.
    unproven = "every size of `h` and `w` passes the code's shape test, but torch cannot prove it"
    assert unproven in finding.message
    assert "narrow" not in finding.message
    assert _before(finding.message, '`h = 2 * Dim("_h")`, `w = 2 * Dim("_w")`', "make `h` and `w` static")
    assert _errors(result, _export("efficientnet", '2 * Dim("h2"')) == []  # and that is what exports
