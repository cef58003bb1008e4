"""Recorded failure texts from older torch (2.2.2, 2.6) map to the same codes as 2.13's structured fields.

These records carry no `gb_type` / `error_type`, only the exception type and
message (as an older worker would send), so they exercise the text fallback.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from exportlens.diagnosis import DiagnosisContext, diagnose
from exportlens.document import Document
from exportlens.findings import Range
from tests.diagnosis.recorded import at_path
from tests.paths import DATA

DATA = DATA
SEED = DATA / "seed_guarded.py"
RECORDS = json.loads((DATA / "torch222_records.json").read_text(encoding="utf-8"))
ANCHOR = Range.of(0, 0, 0, 6)


def _context(module: str, mode: str = "non-strict") -> DiagnosisContext:
    source = SEED.read_text(encoding="utf-8")
    return DiagnosisContext(
        document=Document(str(SEED), source), module=module, mode=mode, anchor=ANCHOR, roots=[str(DATA)]
    )


@pytest.mark.parametrize("case", RECORDS, ids=[c["name"] for c in RECORDS])
def test_recorded_text_maps_to_code(case: dict[str, Any]) -> None:
    source = SEED.read_text(encoding="utf-8")
    ctx = _context(case["module"], case["mode"])
    (finding,) = diagnose(at_path(case["record"], SEED), ctx)
    assert finding.code == case["code"]
    assert finding.severity == "error"
    assert finding.path == str(SEED)
    if case["line"] is None:
        assert finding.range == ANCHOR
    else:
        number = next(i for i, text in enumerate(source.splitlines()) if case["line"] in text)
        assert finding.range.start.line == number
        expected_tracer = "strict export (dynamo)" if case["mode"] == "strict" else "fake tensors"
        assert expected_tracer in finding.message.lower()


def test_more_records_map_once_per_culprit() -> None:
    """`record["more"]` (other failures of the module) adds findings, duplicates collapse."""
    ctx = _context("Guarded")
    first = at_path(RECORDS[2]["record"], SEED)
    other = {
        "stage": "export",
        "strict": False,
        "exc_type": "RuntimeError",
        "exc_mro": ["RuntimeError", "Exception", "BaseException", "object"],
        "message": "Operator mylib.op.default has no fake impl registered; use torch.library.register_fake",
        "op": "mylib.op.default",
        "frames": [
            {"path": str(SEED), "line": 16, "end_line": 16, "col": 19, "end_col": 26, "name": "forward"}
        ],
    }
    findings = diagnose(dict(first, more=[dict(first), other]), ctx)
    assert [f.code for f in findings] == ["data-dependent-branch", "missing-fake-kernel"]
    assert findings[1].range == Range.of(15, 19, 15, 26)
    assert findings[1].fix == {"op": "mylib.op.default", "expression": "x.abs()"}


def test_real_tensor_propagation_records() -> None:
    """Records found by the worker's second look carry draft_export's failure type, not an exception."""
    ctx = _context("Sin")
    frame = {"path": str(SEED), "line": 22, "end_line": 22, "col": 15, "end_col": 27, "name": "forward"}
    record = {
        "stage": "export",
        "strict": False,
        "exc_type": "RuntimeError",
        "exc_mro": ["RuntimeError", "Exception", "BaseException", "object"],
        "message": "The fake impl of mylib.op.default disagrees with its real kernel: shape",
        "draft_failure_type": "MISMATCHED_FAKE_KERNEL",
        "op": "mylib.op.default",
        "frames": [frame],
    }
    (finding,) = diagnose(record, ctx)
    assert finding.code == "fake-kernel-mismatch"
    assert finding.range == Range.of(21, 15, 21, 27)
