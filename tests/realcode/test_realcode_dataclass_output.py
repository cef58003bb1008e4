"""A detector that returns a plain `@dataclass` (issue 26, item 4): the CryoET challenge's 3D U-Net
returns `ObjectDetectionOutput(logits=..., offsets=..., ...)` from another file than the export
script. torch refuses it in both tracers without naming a line (non-strict: "Found <class ...> in
output", strict: "Encountered unrecognized type UserDefinedObjectVariable(...)"); the finding is on
that `return`, in both tracers, with `torch.export.register_dataclass` as the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from exportlens.check import CheckOptions, check_file
from exportlens.engine import Engine
from tests.realcode_expected import CORPUS

SCRIPT = CORPUS / "cryoet" / "export_cryoet.py"
MODEL = CORPUS / "cryoet" / "cryoet" / "modelling" / "detection" / "unet3d_detection.py"


def _return_line() -> int:
    lines = MODEL.read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines) if line.strip().startswith("return ObjectDetectionOutput("))


@pytest.mark.parametrize("mode", ["strict", "both"])
async def test_a_dataclass_output_is_reported_on_the_return_that_builds_it(engine: Engine, mode: str) -> None:
    options = CheckOptions(mode=mode, roots=[str(SCRIPT.parent)], all_failures=False)
    result = await check_file(engine, str(SCRIPT), None, options)
    errors = [d for d in result.diagnostics if d.severity == "error"]
    where = [(d.code, d.mode, Path(d.path).name, d.range.start.line + 1) for d in errors]
    assert len(errors) == 1, where
    (finding,) = errors
    place = (Path(finding.path).resolve(), finding.range.start.line)
    assert place == (MODEL.resolve(), _return_line()), where
    assert finding.code == "unflattenable-output" and finding.mode == mode
    assert "`torch.export.register_dataclass(ObjectDetectionOutput)`" in finding.message
    # the export call that was checked, as related information
    assert any(Path(r.path).name == SCRIPT.name for r in finding.related)
