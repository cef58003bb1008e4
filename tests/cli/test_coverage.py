"""What a run checked (report/coverage.py), on hand-made results: each module once, checked on
its own, recorded or guessed inputs, or not checked with its finding's reason."""

from __future__ import annotations

from pathlib import Path

from exportlens.findings import FileResult, Finding, ModuleResult, Range
from exportlens.report.coverage import UNCALLED, coverage, coverage_lines
from exportlens.report.text import render_text

CWD = Path("/w")


def module(name: str, status: str, inputs: str, mode: str = "non-strict") -> ModuleResult:
    return ModuleResult(name, 1, inputs, mode, status)  # type: ignore[arg-type]


def no_inputs(name: str) -> Finding:
    message = (
        f"ExportLens cannot check `{name}`: its constructor needs arguments. Add an `example_inputs(self)`."
    )
    return Finding(
        "/w/model.py", Range.of(3, 6, 3, 9), "information", "no-example-inputs", message, module=name
    )


def refused(name: str, severity: str = "error", code: str = "data-dependent-branch") -> Finding:
    where = Range.of(5, 8, 5, 9)
    return Finding("/w/model.py", where, severity, code, "m", module=name)  # type: ignore[arg-type]


def test_each_module_once_with_how_or_why() -> None:
    result = FileResult(
        "/w/model.py",
        modules=[
            module("Net", "exported", "export-call"),
            module("Net", "failed", "export-call", "strict"),  # the second tracer: the same module
            module("Block", "exported", "recorded"),
            module("Head", "failed", "inferred"),
            module("GPT", "skipped", "none"),
            module("MLP", "skipped", "none"),
        ],
        diagnostics=[
            no_inputs("GPT"),
            refused("Head"),
            refused("Net", "information", "guessed-inputs-failed"),
        ],
    )
    found = coverage([result], CWD)
    assert found.flagged == ["model.py:Head"]  # an error names it; information does not count
    assert (found.real, found.recorded, found.guessed) == (
        ["model.py:Net"],
        ["model.py:Block"],
        ["model.py:Head"],
    )
    assert found.unchecked == [
        ("model.py:GPT", no_inputs("GPT").message.splitlines()[0] + " [no-example-inputs]"),
        ("model.py:MLP", UNCALLED),
    ]
    assert not found.nothing_checked
    head, *rest = coverage_lines(found)
    assert (
        head
        == "5 module(s): 3 checked (1 on their own inputs, 1 as parts, 1 on guessed inputs), 1 with findings,"
        " 2 not checked"
    )
    assert rest[0].startswith("  not checked: model.py:GPT: ExportLens cannot check `GPT`")


def test_nothing_checked_is_said() -> None:
    result = FileResult(
        "/w/model.py", modules=[module("GPT", "skipped", "none")], diagnostics=[no_inputs("GPT")]
    )
    found = coverage([result], CWD)
    assert found.nothing_checked
    assert "nothing was checked" in coverage_lines(found)[1]
    assert coverage([FileResult("/w/util.py")], CWD).nothing_checked is False  # no module: nothing to say
    assert coverage_lines(coverage([FileResult("/w/util.py")], CWD)) == []


def test_a_class_exported_by_a_script_in_another_file_is_one_module() -> None:
    """`scripts/export.py` exports `models/net.py`'s `Net`: both files report it (the model file gets
    the script's findings mapped back), the run counts it once, under the file that defines it."""
    tree = {"root": {"class": "Net", "file": "/w/models/net.py"}, "parts": []}
    script = FileResult("/w/scripts/export.py", modules=[module("Net", "exported", "export-call")])
    model = FileResult("/w/models/net.py", modules=[module("Net", "exported", "export-call")])
    for result in (script, model):
        result.modules[0].tree = tree  # type: ignore[assignment]
    found = coverage([script, model], CWD)
    assert (found.real, found.unchecked) == (["models/net.py:Net"], [])
    assert coverage_lines(found)[0] == "1 module(s): 1 checked (1 on their own inputs)"
    assert "1 module export(s) succeeded" in render_text([script, model], CWD)
