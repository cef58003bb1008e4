"""`exportlens check --target`: each target's refusals in text, JSON and SARIF (docs/targets.md)."""

from __future__ import annotations

import json
import textwrap
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


def test_executorch_target_on_issue_41s_model(tmp_path: Path) -> None:
    """`--target executorch`: the sort line an error (no kernel in the runtime), the cumsum line not
    delegated (a warning), nothing on the delegated Linear / relu line; JSON carries the facts."""
    from tests.lowerings.test_executorch_worker import SORTED

    source = textwrap.dedent(SORTED).lstrip("\n")
    (tmp_path / "ranked.py").write_text(source)
    lines = source.splitlines()
    sort = 1 + next(i for i, line in enumerate(lines) if "torch.sort(" in line)
    cumsum = 1 + next(i for i, line in enumerate(lines) if "torch.cumsum(" in line)
    out = run_cli("ranked.py", "--no-cache", "--target", "executorch", "--format", "json", cwd=tmp_path)
    assert out.returncode == 1, out.stdout + out.stderr
    (entry,) = json.loads(out.stdout)["files"]
    found = [(d["code"], d["severity"], d["range"]["start"]["line"] + 1) for d in entry["diagnostics"]]
    assert sorted(found) == [
        ("executorch-missing-kernel", "error", sort),
        ("executorch-not-delegated", "warning", cumsum),
    ], found
    (module,) = entry["modules"]
    (target,) = module["targets"]
    assert target["target"] == "executorch" and target["ok"] is False
    assert target["facts"]["delegated"] == "2/4 nodes" and target["facts"]["pte_bytes"] > 1000


def test_coreml_target_puts_the_refused_op_on_its_line(tmp_path: Path) -> None:
    """`--target coreml`: `torch.unique` refused by coremltools on its line, in text and JSON."""
    from tests.lowerings.test_coreml_worker import UNIQUE

    source = textwrap.dedent(UNIQUE).lstrip("\n")
    (tmp_path / "counted.py").write_text(source)
    line = 1 + next(i for i, text in enumerate(source.splitlines()) if "torch.unique(" in text)
    text = run_cli("counted.py", "--no-cache", "--target", "coreml", cwd=tmp_path)
    assert text.returncode == 1, text.stdout + text.stderr
    assert f"counted.py:{line}:" in text.stdout and "error[coreml-conversion-error]: Core ML: " in text.stdout
    out = run_cli("counted.py", "--no-cache", "--target", "coreml", "--format", "json", cwd=tmp_path)
    (entry,) = json.loads(out.stdout)["files"]
    (diagnostic,) = entry["diagnostics"]
    assert (
        diagnostic["code"] == "coreml-conversion-error" and diagnostic["range"]["start"]["line"] + 1 == line
    )
    assert diagnostic["fix"] == {"target": "coreml", "node": "_unique2", "op": "aten._unique2.default"}
    (module,) = entry["modules"]
    assert [(t["target"], t["ok"]) for t in module["targets"]] == [("coreml", False)]
