"""How a part's own findings are weighed against its parent's (parts.py), pure: said once, and an
error only the part alone hits while its parent exports is information."""

from __future__ import annotations

import ast

from exportlens.check.parts import RecordedPart, part_findings
from exportlens.discovery import Subject
from exportlens.findings import Finding, Range

PART = RecordedPart(Subject("Attention", "Attention", ast.Pass(), {"kind": "recorded"}), "Block", "m.py")


def finding(line: int, code: str, severity: str = "error", mode: str = "non-strict") -> Finding:
    return Finding("/w/m.py", Range.of(line, 8, line, 20), severity, code, f"{code} here", "Attention", mode)  # type: ignore[arg-type]


def test_what_the_parent_said_is_not_said_again() -> None:
    parent = [finding(7, "data-dependent-branch"), finding(12, "side-effect-baked", "warning")]
    mine = [
        finding(7, "data-dependent-branch"),  # the same code on the same line
        finding(12, "side-effect-baked", "warning"),
        finding(7, "export-error"),  # another code where the parent has an error
        finding(9, "data-dependent-branch"),  # the part's own
    ]
    kept = part_findings(mine, PART, parent, exported=set())
    assert [(f.range.start.line, f.code, f.severity) for f in kept] == [(9, "data-dependent-branch", "error")]


def test_an_error_only_the_part_alone_hits_while_its_parent_exports_is_information() -> None:
    mine = [
        finding(9, "dim-range-narrowed"),
        finding(11, "data-dependent-branch"),
        finding(3, "side-effect-baked", "warning"),
    ]
    kept = part_findings(mine, PART, [], exported={"non-strict"})
    assert [(f.range.start.line, f.code, f.severity) for f in kept] == [
        (9, "recorded-inputs-failed", "information"),
        (3, "side-effect-baked", "warning"),
    ]
    assert "`Block` exports" in kept[0].message and "(1 more on the same inputs.)" in kept[0].message
    assert "dim-range-narrowed here" in kept[0].message and "example_inputs" in kept[0].message
    # in the tracer the parent did not export in, the part's error is the user's: kept as an error
    strict = part_findings([finding(9, "dim-range-narrowed", mode="strict")], PART, [], {"non-strict"})
    assert [(f.code, f.severity) for f in strict] == [("dim-range-narrowed", "error")]
