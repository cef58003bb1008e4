"""TD3's actor and twin critic (tests/data/realcode/corpus/td3, modelled on sfujim/TD3 TD3.py) checked
with `core-aten` and `onnx`: clean, as torch itself says (by hand, torch 2.13 + onnxscript 0.7.2 +
onnxruntime 1.32.0: no op without `torch.Tag.core` after `default_decompositions()`, and ONNX Runtime
within 1.1e-7 of eager at batch 4 and 7)."""

from __future__ import annotations

from exportlens.check import CheckOptions, check_file
from exportlens.engine import Engine
from tests.lowerings import needs_onnx
from tests.paths import ROOT

SCRIPT = ROOT / "tests/data/realcode/corpus/td3/export_td3.py"


@needs_onnx
async def test_td3_lowers_to_core_aten_and_onnx_and_matches_eager(engine: Engine) -> None:
    options = CheckOptions(roots=[str(SCRIPT.parent)], lowerings=("export", "core-aten", "onnx"))
    result = await check_file(engine, str(SCRIPT), None, options)
    assert result.diagnostics == []
    assert sorted(m.name for m in result.modules) == ["Actor", "Critic"]
    for module in result.modules:
        assert module.status == "exported"
        verdicts = {t["target"]: t for t in module.lowerings}
        assert [verdicts[t]["ok"] for t in ("core-aten", "onnx")] == [True, True], module.name
        assert len(verdicts["onnx"]["facts"]["numeric_checks"]) == 2, module.name  # and a second batch size
