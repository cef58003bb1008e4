"""`exportlens check --target`: each target's refusals in text, JSON and SARIF (docs/targets.md)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_cli import run_cli
from tests.custom_ops import scale_op

SCALED = """

class Scaled(torch.nn.Module):
    def forward(self, x):
        return scale(x) + 1

    def example_inputs(self):
        return (torch.ones(3),)
"""
CUSTOM_OP = scale_op("el_cli") + SCALED
LINE = 1 + CUSTOM_OP.splitlines().index("        return scale(x) + 1")  # 1-based, as reported


def test_targets_in_text_json_and_sarif(tmp_path: Path) -> None:
    (tmp_path / "scaled.py").write_text(CUSTOM_OP)
    plain = run_cli("scaled.py", "--no-cache", cwd=tmp_path)
    assert plain.returncode == 0 and "0 error(s)" in plain.stdout, plain.stdout + plain.stderr
    text = run_cli("scaled.py", "--no-cache", "--target", "core-aten", "--target", "onnx", cwd=tmp_path)
    assert text.returncode == 1, text.stderr
    lines = text.stdout.splitlines()
    assert (
        lines[0].startswith(f"scaled.py:{LINE}:")
        and "error[core-aten-op]: Core ATen: `el_cli.scale.default`" in lines[0]
    )
    assert any(
        line.startswith(f"scaled.py:{LINE}:") and "error[onnx-no-translation]: ONNX: " in line
        for line in lines
    )
    out = run_cli("scaled.py", "--no-cache", "--target", "onnx", "--format", "json", cwd=tmp_path)
    (entry,) = json.loads(out.stdout)["files"]
    (module,) = entry["modules"]
    assert [(t["target"], t["ok"]) for t in module["targets"]] == [("onnx", False)]
    assert [d["code"] for d in entry["diagnostics"]] == ["onnx-no-translation"]
    assert entry["diagnostics"][0]["fix"] == {"target": "onnx", "node": "scale", "op": "el_cli.scale.default"}
    sarif = run_cli("scaled.py", "--no-cache", "--target", "onnx", "--format", "sarif", cwd=tmp_path)
    (run,) = json.loads(sarif.stdout)["runs"]
    assert [
        (r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in run["results"]
    ] == [("onnx-no-translation", LINE)]
