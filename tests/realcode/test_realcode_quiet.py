"""Public models that export, and what ExportLens still has to say about them (issue 26 items 2 and 9).

Through the real worker, on the corpus's cases (tests/data/realcode/corpus, torch's verdicts in
tests/realcode_expected.py: all three export in both tracers):
- yolov3: PyTorch-YOLOv3's `load_model` moves the model to `cuda` when `torch.cuda.is_available()`;
  the script's images stay on the CPU. Here it exports: no error. On a GPU machine torch refuses it:
  a warning that says so, on the export call, the question's line related.
- clip: CLIP's ViT with a positional table for 64x64 images, exported with Dims on h and w: the
  program checks `(h//32)*(w//32) + 1 == 5`; a warning on the line that adds the table.
- mingpt: exported without `.eval()`; its dropouts are built in the package's submodules: a warning
  on each `nn.Dropout(...)` that built them, the export call related.
"""

from __future__ import annotations

from pathlib import Path

from exportlens.check import CheckOptions, check_file
from exportlens.engine import Engine
from exportlens.findings import FileResult, Finding
from tests.realcode_expected import CORPUS


async def _check(engine: Engine, case: str, script: str) -> FileResult:
    path = CORPUS / case / script
    options = CheckOptions(mode="both", roots=[str(path.parent)], all_failures=False)
    return await check_file(engine, str(path), None, options)


def _line(case: str, file: str, needle: str) -> int:
    lines = (CORPUS / case / file).read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines) if needle in line and not line.lstrip().startswith("#"))


def _where(finding: Finding) -> tuple[str, int]:
    return Path(finding.path).name, finding.range.start.line


async def test_a_detector_loader_that_asks_for_a_gpu(engine: Engine) -> None:
    result = await _check(engine, "yolov3", "export_yolov3.py")
    assert {m.status for m in result.modules} == {"exported"}, [(m.name, m.status) for m in result.modules]
    errors = [(d.code, d.message) for d in result.diagnostics if d.severity == "error"]
    assert errors == []
    (gpu,) = [d for d in result.diagnostics if d.code == "gpu-path-refused"]
    assert (gpu.severity, gpu.mode) == ("warning", "both")
    assert _where(gpu) == (
        "export_yolov3.py",
        _line("yolov3", "export_yolov3.py", "torch.export.export(model"),
    )
    assert "Only on a machine with a GPU" in gpu.message and "`cpu` and `cuda:0`" in gpu.message, gpu.message
    assert "`Darknet` (exported as `model`) exports on the CPU" in gpu.message, gpu.message  # the class
    related = {(Path(r.path).name, r.range.start.line): r.message for r in gpu.related}
    asked = (
        "models.py",
        _line("yolov3", "pytorchyolo/models.py", 'torch.device("cuda" if torch.cuda.is_available()'),
    )
    assert "is False on this machine" in related.get(asked, ""), related


async def test_a_fixed_position_table_under_dynamic_sides(engine: Engine) -> None:
    result = await _check(engine, "clip", "export_clip.py")
    assert {m.status for m in result.modules} == {"exported"}
    assert not [d for d in result.diagnostics if d.severity == "error"]
    narrowed = [d for d in result.diagnostics if d.code == "dim-narrowed-at-runtime"]
    table = ("model.py", _line("clip", "clip/model.py", "x = x + self.positional_embedding"))
    assert [_where(d) for d in narrowed] == [table], [(d.path, d.range, d.message) for d in narrowed]
    (warning,) = narrowed
    dynamic = _line("clip", "export_clip.py", "dynamic_shapes=(sides,)")
    assert warning.module is not None and warning.module != "visual", warning.module  # the dynamic call's
    assert (warning.severity, warning.mode) == ("warning", "both")
    assert "x.shape[2]//32" in warning.message and "== 5" in warning.message, warning.message
    assert "is rejected" in warning.message, warning.message
    assert warning.message.startswith("`VisionTransformer` (exported as `visual` on line 15) exports"), (
        warning.message
    )
    assert [(Path(r.path).name, r.range.start.line) for r in warning.related] == [("export_clip.py", dynamic)]


async def test_dropouts_built_in_a_packages_submodules(engine: Engine) -> None:
    result = await _check(engine, "mingpt", "export_mingpt_training.py")
    assert {m.status for m in result.modules} == {"exported"}
    training = [d for d in result.diagnostics if d.code == "exported-in-training-mode"]
    model = "mingpt/model.py"
    built = {
        ("model.py", _line("mingpt", model, needle))
        for needle in (
            "self.attn_dropout = nn.Dropout(config.attn_pdrop)",
            "self.resid_dropout = nn.Dropout(config.resid_pdrop)",
            "dropout=nn.Dropout(config.resid_pdrop)",
            "drop=nn.Dropout(config.embd_pdrop)",
        )
    }
    assert {_where(d) for d in training} == built, [(_where(d), d.message[:80]) for d in training]
    call = ("export_mingpt_training.py", _line("mingpt", "export_mingpt_training.py", "torch.export.export"))
    for warning in training:
        assert warning.severity == "warning" and ".eval()" in warning.message, warning.message
        assert "exported in training mode with `GPT`" in warning.message, warning.message  # the class
        assert call in [(Path(r.path).name, r.range.start.line) for r in warning.related], warning.related


async def test_a_multiple_of_the_patch_size_still_pinned_by_the_interpolation(engine: Engine) -> None:
    """DINOv2 exported with `h = 14 * Dim("h_patches")` (the advice for the export before it): torch
    exports it, and its program then accepts only the example's 56 x 84 (torch 2.13: "Guard failed:
    (0.1 + torch.sym_float(args_0.size()[2] // 14)) / 4.0 == 1.025"), pinned by the position table's
    `interpolate(..., scale_factor=...)` computed from the size. A derived Dim's guards name the size
    it replaced (`s69` for `14*s53`): they were never judged, and nothing was said."""
    result = await _check(engine, "dinov2", "export_dinov2.py")
    derived = _line("dinov2", "export_dinov2.py", "dynamic_shapes=((patches,),)")
    module = next(m.name for m in result.modules if m.line == derived)
    assert {m.status for m in result.modules if m.name == module} == {"exported"}
    narrowed = [d for d in result.diagnostics if d.code == "dim-narrowed-at-runtime" and d.module == module]
    scale = (
        "vision_transformer.py",
        _line("dinov2", "dinov2/models/vision_transformer.py", "scale_factor=("),
    )
    assert scale in {_where(d) for d in narrowed}, [(_where(d), d.message[:120]) for d in narrowed]
    lines = [_where(d) for d in narrowed]
    assert len(lines) == len(set(lines)), lines  # one warning per line: h's and w's conditions in one
    first = next(d for d in narrowed if _where(d) == scale)
    # both sides' conditions, in the Python the line computes, not torch's FloatTrueDiv(ToFloat(...))
    assert "`(float(args_0.shape[2] // 14) + 0.1) / 4.0 == 1.025`" in first.message, first.message
    assert "args_0.shape[3]" in first.message and "ToFloat" not in first.message, first.message
    assert first.severity == "warning" and "// 14" in first.message, first.message
    assert "= 70, inside its range 28..448, is rejected (the example's 56 passes)" in first.message, (
        first.message
    )
