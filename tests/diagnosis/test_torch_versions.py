"""The same diagnostics on every torch version users have (2.10-2.15), through the worker's torch.

The modules of tests/data/torch_versions_cases.py are the ones whose diagnosis once differed by
version (issue #14); examples/ is what users see first.  Each expectation holds on every version
but where torch itself behaves differently (tests/torch_versions.py, docs/torch-versions.md).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from exportlens.diagnosis import DiagnosisContext, diagnose
from exportlens.document import Document
from exportlens.engine import Engine
from exportlens.findings import FileResult, Finding, Range
from tests.conftest import check
from tests.diagnosis.recorded import at_path
from tests.paths import ROOT
from tests.torch_versions import CORPUS_DIFFERENCES, DIFFERENCES, Expected, expected_for, version_of

CASES = ROOT / "tests" / "data" / "torch_versions_cases.py"
DOC = ROOT / "docs" / "torch-versions.md"

# module -> {mode: (code, culprit text)}; a missing mode: that tracer exports it (no error).
EXPECTED: dict[str, dict[str, tuple[str, str | None]]] = {
    "TaskHeads": {
        "strict": ("data-dependent-guard", "self.heads[int(task_id)]"),
        "non-strict": ("tensor-to-python-scalar", "int(task_id)"),
    },
    "PerfCounter": {"strict": ("untraceable-call", "time.perf_counter()")},
    "MeanIf": {"both": ("data-dependent-branch", "x.mean() > 0.5")},
    "WhileSum": {"both": ("data-dependent-branch", "x.sum() < 10")},
    "BoolAny": {
        "strict": ("data-dependent-branch", "bool(x.any())"),
        "non-strict": ("tensor-to-python-scalar", "bool(x.any())"),
    },
    "NormIf": {"both": ("data-dependent-branch", "y > 1")},
    "Counter": {},
    "PrintItem": {},
    "Commented": {"strict": ("untraceable-call", "time.time()")},
    "NoFake": {"both": ("missing-fake-kernel", "quadruple(x)")},
    "CondDtype": {"both": ("cond-branch-mismatch", "torch.cond(x.sum() > 0, _sin, _positive, (x,))")},
}

# examples/: file -> (module, mode as merged by --mode both, code, culprit text), warnings included.
EXAMPLES: dict[str, list[tuple[str, str, str, str]]] = {
    "clean_mlp.py": [],
    "silent_clean_eval.py": [],
    "cond_misuse.py": [
        (
            "RankMismatch",
            "both",
            "cond-branch-mismatch",
            "torch.cond(x.sum() > 0, lambda t: t.sin(), lambda t: t.sum(), (x,))",
        ),
        (
            "ReturnsInput",
            "both",
            "cond-branch-aliases-input",
            "torch.cond(x.sum() > 0, lambda t: t, lambda t: t.cos(), (x,))",
        ),
    ],
    "custom_op.py": [("UsesOp", "both", "missing-fake-kernel", "torch.ops.examples.double(x)")],
    "dynamic_dims.py": [
        ("Flatten", "both", "dim-specialized", "x.reshape(8, 16)"),
        ("Clip", "both", "dim-range-narrowed", "x.shape[0] > 16"),
        ("Mix", "both", "dims-must-be-equal", "x * y"),
    ],
    "guarded.py": [("Guarded", "both", "data-dependent-branch", "(x < 0).any()")],
    "item_in_if.py": [("TopK", "both", "data-dependent-guard", "count > 3")],
    "on_gpu.py": [("AddsBias", "both", "device-mismatch", "out += torch.zeros(4)")],
    "non_strict_only.py": [
        ("NumpyMath", "non-strict", "tensor-numpy", "x.numpy()"),
        ("Scale", "non-strict", "tensor-to-python-scalar", "float(x.sum())"),
    ],
    "silent_side_effects.py": [
        ("Counting", "both", "side-effect-baked", 'log.info("forward on %s", tuple(x.shape))'),
        ("Counting", "both", "side-effect-baked", "SEEN_SHAPES.append(x.shape)"),
        ("Counting", "both", "side-effect-baked", "self.calls += 1"),
        ("Counting", "both", "tensor-attribute-not-buffer", "self.last = x.detach()"),
    ],
    "silent_training_mode.py": [
        # Where the layers are built (issue 26 item 9; was the line that calls them).
        ("Classifier", "both", "exported-in-training-mode", "nn.BatchNorm2d(8)"),
        ("Classifier", "both", "exported-in-training-mode", "nn.Dropout(0.3)"),
        ("Classifier", "both", "input-mutated", "x.mul_(0.5)"),
    ],
    "strict_only.py": [
        ("Stamped", "non-strict", "side-effect-baked", "time.time()"),
        ("Stamped", "strict", "untraceable-call", "time.time()"),
    ],
    "tiny_example.py": [("Add", "both", "dim-example-too-small", "(torch.randn(1, 4),)")],
}

_results: dict[str, FileResult] = {}


async def _checked(engine: Engine, path: Path, mode: str) -> FileResult:
    key = f"{path}:{mode}"
    if key not in _results:
        _results[key] = await check(engine, str(path), mode=mode)
    return _results[key]


def _text(finding: Finding) -> str:
    """The culprit's text (ASCII sources: UTF-16 columns are str indices)."""
    line = Path(finding.path).read_text(encoding="utf-8").splitlines()[finding.range.start.line]
    end = finding.range.end.character if finding.range.end.line == finding.range.start.line else len(line)
    return line[finding.range.start.character : end]


@pytest.mark.parametrize("mode", ["non-strict", "strict"])
@pytest.mark.parametrize("module", sorted(EXPECTED))
async def test_case(engine: Engine, module: str, mode: str) -> None:
    result = await _checked(engine, CASES, mode)
    errors = [d for d in result.diagnostics if d.module == module and d.severity == "error"]
    version = version_of(engine)
    cases = EXPECTED[module]
    expected: Expected = expected_for(module, mode, version, cases.get(mode) or cases.get("both"))
    if expected is None:
        assert errors == [], [(d.code, d.message) for d in errors]
        assert [m.status for m in result.modules if m.name == module] == ["exported"]
        return
    code, needle = expected
    assert [(d.code, _text(d)) for d in errors] == [(code, needle)], [d.message for d in errors]
    (finding,) = errors
    if module == "PrintItem":  # the refusal says why: the f-string needs the value
        assert "the f-string formats `h.mean().item()`" in finding.message, finding.message
    if module == "NoFake":  # the op, not torch's first line (2.14+ wrap it in another exception)
        assert "exportlens_versions" in finding.message and "quadruple" in finding.message, finding.message


@pytest.mark.parametrize("name", sorted(EXAMPLES))
async def test_example(engine: Engine, name: str) -> None:
    result = await _checked(engine, ROOT / "examples" / name, "both")
    got = [(d.module, d.mode, d.code, _text(d)) for d in result.diagnostics]
    assert sorted(got) == sorted(EXAMPLES[name]), [d.message for d in result.diagnostics]


async def test_graph_break_links_are_the_running_torchs(engine: Engine) -> None:
    """A graph-break link is the page of the break the running torch raised."""
    result = await _checked(engine, CASES, "strict")
    (clock,) = [d for d in result.diagnostics if d.module == "PerfCounter" and d.severity == "error"]
    expected = "gb9193" if version_of(engine) >= (2, 15) else "gb0007"  # 2.15's own break for clocks
    assert clock.url and clock.url.endswith(f"/gb/{expected}.html"), clock.url
    # A failed fake-tensor call of torch.cond is gb4315 from 2.13 on (2.14+ keep only its link);
    # 2.10 raises no graph break for it: torch's cond docs then.
    (cond,) = [d for d in result.diagnostics if d.module == "CondDtype" and d.severity == "error"]
    wanted = "/gb/gb4315.html" if version_of(engine) >= (2, 13) else "/cond.html"
    assert cond.url and cond.url.endswith(wanted), cond.url


def test_every_difference_is_documented() -> None:
    anchors = {
        re.sub(r"[^a-z0-9 -]", "", line[3:].strip().lower()).replace(" ", "-")
        for line in DOC.read_text(encoding="utf-8").splitlines()
        if line.startswith("## ")
    }
    sections = {d.section for d in DIFFERENCES} | {d.section for d in CORPUS_DIFFERENCES}
    assert sorted(sections - anchors) == []


RECORDS = json.loads((ROOT / "tests" / "data" / "torch_versions_records.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", RECORDS, ids=[c["name"] for c in RECORDS])
def test_recorded_failure_without_the_structured_fields(case: dict[str, Any]) -> None:
    """Real 2.10 / 2.15 records with the fields the worker adds taken out: the text fallback alone
    gets the code and line (2.10's hint "Use `torch.cond`" must not make a cond mismatch)."""
    source = CASES.read_text(encoding="utf-8")
    anchor = Range.of(0, 0, 0, 1)
    ctx = DiagnosisContext(
        Document(str(CASES), source), case["module"], case["mode"], anchor, roots=[str(CASES.parent)]
    )
    (finding,) = diagnose(at_path(case["record"], CASES), ctx)
    line = next(i for i, text in enumerate(source.splitlines()) if case["line"] in text)
    assert (finding.code, finding.range.start.line) == (case["code"], line), finding.message
