"""Each code's section of docs/codes.md, as SARIF's rule help and the package's shipped docs read it."""

from __future__ import annotations

import json
from pathlib import Path

from exportlens.codes import CODES, sections
from exportlens.findings import FileResult, Finding, Range
from exportlens.report.sarif import render_sarif
from tests.paths import ROOT


def test_every_code_has_its_section_and_nothing_else_is_one() -> None:
    assert set(sections.sections()) == set(CODES)


def test_a_heading_inside_a_code_block_does_not_cut_the_section() -> None:
    text = sections.markdown("dim-specialized")
    assert text is not None and "# also: if x.shape[0] == 8" in text and "**Fix:**" in text


def test_sarif_rules_hold_the_sections(tmp_path: Path) -> None:
    found = [
        Finding(
            str(tmp_path / "m.py"), Range.of(0, 0, 0, 1), CODES[code].severity, code, "message", module="M"
        )
        for code in ("untrusted-workspace", "dim-specialized")
    ]
    log = json.loads(render_sarif([FileResult(str(tmp_path / "m.py"), diagnostics=found)], {}, tmp_path))
    rules = {rule["id"]: rule for rule in log["runs"][0]["tool"]["driver"]["rules"]}
    for code, rule in rules.items():
        assert rule["help"]["markdown"] == sections.markdown(code)
        assert rule["fullDescription"]["text"] == CODES[code].why
    # the text form keeps a link's words, not its target
    assert "(#syntax-error)" in rules["untrusted-workspace"]["help"]["markdown"]
    assert "static findings (syntax-error, no-example-inputs)" in rules["untrusted-workspace"]["help"]["text"]


def test_the_docs_a_finding_can_reach_are_those_codes_md_links_to() -> None:
    docs = ROOT / "docs"
    reached = sections.linked_docs(docs / "codes.md")
    assert [p.name for p in reached] == [
        "codes.md",
        "compile.md",
        "configuration.md",
        "devices.md",
        "targets.md",
        "torch-versions.md",
    ]
