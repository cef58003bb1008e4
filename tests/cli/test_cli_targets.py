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


def test_the_on_device_example_and_its_topk_rewrite(tmp_path: Path) -> None:
    """examples/on_device (what `make run` shows): its pyproject.toml turns the executorch target on, the
    sort line is a missing kernel, the cumsum line portable; rewritten with the topk its docstring
    gives, the `.pte` loads and its numbers match eager: topk and cumsum run on portable kernels."""
    example = Path(__file__).resolve().parents[2] / "examples" / "on_device"
    for name in ("pyproject.toml", "nucleus_filter.py"):
        (tmp_path / name).write_bytes((example / name).read_bytes())
    source = (tmp_path / "nucleus_filter.py").read_text()
    lines = source.splitlines()
    sort, cumsum = (
        1 + next(i for i, t in enumerate(lines) if needle in t) for needle in ("torch.sort(", "cumsum(")
    )
    out = run_cli("nucleus_filter.py", "--no-cache", "--format", "json", cwd=tmp_path)
    assert out.returncode == 1, out.stdout + out.stderr
    (entry,) = json.loads(out.stdout)["files"]
    found = [(d["code"], d["range"]["start"]["line"] + 1) for d in entry["diagnostics"]]
    assert found == [("executorch-missing-kernel", sort), ("executorch-not-delegated", cumsum)], found
    rewritten = source.replace(
        "torch.sort(probs, dim=-1, descending=True)", "torch.topk(probs, probs.shape[-1], dim=-1)"
    )
    assert rewritten != source
    (tmp_path / "nucleus_filter.py").write_text(rewritten)
    out = run_cli("nucleus_filter.py", "--no-cache", "--format", "json", cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    (entry,) = json.loads(out.stdout)["files"]
    found = [(d["code"], d["range"]["start"]["line"] + 1) for d in entry["diagnostics"]]
    assert found == [("executorch-not-delegated", sort), ("executorch-not-delegated", cumsum)], found
    (lowering,) = entry["modules"][0]["targets"]
    assert lowering["ok"] is True and lowering["facts"]["numeric_checks"] == ["the example inputs"], lowering


def test_executorch_quantized_is_its_own_result_in_the_cache(tmp_path: Path) -> None:
    """`--target executorch --quantize xnnpack`: the int8 `.pte`'s error against the float model is
    a warning on the module and facts in the JSON; the float run before it, cached, is not reused."""
    from tests.lowerings.test_executorch_quantized import DIFFERENCE

    source = textwrap.dedent(DIFFERENCE).lstrip("\n")
    (tmp_path / "difference.py").write_text(source)
    module_line = 1 + source.splitlines().index("class Difference(nn.Module):")
    cache = tmp_path / "cache"
    ask = ("difference.py", "--target", "executorch", "--format", "json")
    plain = run_cli(*ask, cwd=tmp_path, cache=cache)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    (entry,) = json.loads(plain.stdout)["files"]
    assert entry["diagnostics"] == [] and "quantized" not in entry["modules"][0]["targets"][0]["facts"]
    out = run_cli(*ask, "--quantize", "xnnpack", cwd=tmp_path, cache=cache)
    assert out.returncode == 0, out.stdout + out.stderr  # a warning
    (entry,) = json.loads(out.stdout)["files"]
    found = [(d["code"], d["severity"], d["range"]["start"]["line"] + 1) for d in entry["diagnostics"]]
    assert found == [("executorch-quantized-error", "warning", module_line)], found
    (target,) = entry["modules"][0]["targets"]
    facts = target["facts"]
    assert target["target"] == "executorch" and target["ok"] is True and facts["quantized"] == "xnnpack"
    assert facts["quantized_max_rel_error"] > 0.1 and facts["quantized_max_abs_error"] > 0
    text = run_cli(*ask[:3], "--quantize", "xnnpack", cwd=tmp_path, cache=cache)  # cached now
    assert (
        f"difference.py:{module_line}:" in text.stdout
        and "warning[executorch-quantized-error]" in text.stdout
    )


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
