"""`exportlens check` on files that compile their model (issue 31, docs/compile.md): graph breaks
and recompiles on the user's lines, in text, JSON and SARIF, without Inductor ever running."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.test_cli import run_cli as run_here
from tests.compile.sources import (
    BATCH_PINNED,
    DECORATED_FORWARD,
    DECORATED_FUNCTION,
    EXPORTED_AND_COMPILED,
    FULLGRAPH,
    FUNCTION_COMPILED,
    PRINT_AND_BRANCH,
    SEQUENCE_PINNED,
    line_of,
)
from tests.conftest import WORKER_PYTHON


def run_cli(*args: str, cwd: Path) -> Any:
    """The CLI, its worker in the worker's interpreter (another torch: tools/versions_matrix.py)."""
    return run_here(*args, cwd=cwd, python=WORKER_PYTHON)


def test_a_compiled_models_breaks_are_warnings_on_their_lines(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(PRINT_AND_BRANCH)
    text = run_cli("train.py", "--no-cache", cwd=tmp_path)
    assert text.returncode == 0, text.stdout + text.stderr
    printed, branch = line_of(PRINT_AND_BRANCH, "print(") + 1, line_of(PRINT_AND_BRANCH, "if h.sum()") + 1
    found = [line for line in text.stdout.splitlines() if line.startswith("train.py:")]
    assert [line.split(": ")[0].rsplit(":", 1)[0] for line in found] == [
        f"train.py:{printed}",
        f"train.py:{branch}",
    ], text.stdout
    assert (
        "warning[compile-graph-break]: torch.compile: graph break in `Net`: Failed to trace builtin"
        in found[0]
    )
    assert "reorderable_logging_functions" in found[0]  # torch's own hint
    assert "warning[compile-graph-break]" in found[1] and "Data-dependent branching" in found[1]
    assert "torch.cond" in found[1]
    assert "0 error(s)" in text.stdout and "Inductor" not in text.stdout and "export" not in found[1]
    assert "1 file(s): 0 module export(s) succeeded, 0 failed, 1 compile check(s); 0 error(s)" in text.stdout
    out = run_cli("train.py", "--no-cache", "--format", "json", cwd=tmp_path)
    (entry,) = json.loads(out.stdout)["files"]
    (module,) = entry["modules"]
    assert module["inputs"] == "compile-call" and module["mode"] == "compile"
    assert module["status"] == "compiled"  # only compiled: never said to export
    assert module["compile"] == {"graphs": 3, "breaks": 2, "recompiles": 0, "fullgraph": False}
    assert [(d["code"], d["severity"]) for d in entry["diagnostics"]] == [
        ("compile-graph-break", "warning")
    ] * 2
    assert entry["diagnostics"][0]["url"].endswith("/gb/gb0059.html")  # the link torch's message gives
    assert entry["diagnostics"][1]["fix"]["gb_id"] == "gb0170"  # read from torch's registry
    sarif = run_cli("train.py", "--no-cache", "--format", "sarif", cwd=tmp_path)
    (run,) = json.loads(sarif.stdout)["runs"]
    assert [
        (r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
        for r in run["results"]
    ] == [("compile-graph-break", "warning", printed), ("compile-graph-break", "warning", branch)]


def test_with_fullgraph_the_print_line_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "strict_compile.py").write_text(FULLGRAPH)
    text = run_cli("strict_compile.py", "--no-cache", cwd=tmp_path)
    assert text.returncode == 1, text.stdout + text.stderr
    printed = line_of(FULLGRAPH, "print(") + 1
    (first,) = [line for line in text.stdout.splitlines() if line.startswith(f"strict_compile.py:{printed}:")]
    assert "error[compile-graph-break-fullgraph]: torch.compile: graph break in `Net`" in first
    assert "With `fullgraph=True` torch.compile raises here." in first


def test_a_size_pinned_in_forward_recompiles_on_every_batch(tmp_path: Path) -> None:
    (tmp_path / "rows.py").write_text(BATCH_PINNED)
    out = run_cli("rows.py", "--no-cache", "--format", "json", cwd=tmp_path)
    (entry,) = json.loads(out.stdout)["files"]
    (recompile,) = entry["diagnostics"]
    assert recompile["code"] == "compile-recompile" and recompile["severity"] == "warning"
    assert recompile["range"]["start"]["line"] == line_of(BATCH_PINNED, "for i in range(x.shape[0])")
    assert "called with sizes 2, 3, 4" in recompile["message"]
    assert (
        "tensor 'x' size mismatch at index 0. expected 3, actual 4" in recompile["message"]
    )  # torch's reason
    # torch refuses `mark_dynamic` on a size the code pins (it raises), and `dynamic=True` still
    # recompiles: both are said as checked, neither advised (issue 45)
    assert "`torch._dynamo.mark_dynamic(x, 0)` before each call makes torch raise" in recompile["message"]
    assert "`torch.compile(..., dynamic=True)` still recompiles" in recompile["message"]


def test_a_module_exported_and_compiled_gets_both_checks_each_saying_which(tmp_path: Path) -> None:
    (tmp_path / "both.py").write_text(EXPORTED_AND_COMPILED)
    out = run_cli("both.py", "--no-cache", "--format", "json", cwd=tmp_path)
    (entry,) = json.loads(out.stdout)["files"]
    branch = line_of(EXPORTED_AND_COMPILED, "if h.sum() > 0:")
    found = {(d["code"], d["range"]["start"]["line"]): d["message"] for d in entry["diagnostics"]}
    assert set(found) == {("compile-graph-break", branch), ("data-dependent-branch", branch)}
    assert found[("compile-graph-break", branch)].startswith(
        "torch.compile: graph break in `Gate` (compiled):"
    )
    assert "export" in found[("data-dependent-branch", branch)]


def test_the_compile_setting_turns_the_checks_off_or_onto_every_module(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(PRINT_AND_BRANCH)
    off = run_cli("train.py", "--no-cache", "--compile", "off", "--format", "json", cwd=tmp_path)
    (entry,) = json.loads(off.stdout)["files"]
    assert entry["diagnostics"] == [] and entry["modules"] == []  # only compiled: never judged as an export
    (tmp_path / "net.py").write_text(PRINT_AND_BRANCH.split("\n\nmodel = ")[0] + "\n")
    auto = run_cli("net.py", "--no-cache", "--format", "json", cwd=tmp_path)
    assert not any(
        d["code"].startswith("compile-") for d in json.loads(auto.stdout)["files"][0]["diagnostics"]
    )
    every = run_cli("net.py", "--no-cache", "--compile", "all", "--format", "json", cwd=tmp_path)
    (entry,) = json.loads(every.stdout)["files"]
    compiled = [d for d in entry["diagnostics"] if d["code"] == "compile-graph-break"]
    assert [d["range"]["start"]["line"] for d in compiled] == [
        line_of(PRINT_AND_BRANCH, "print("),
        line_of(PRINT_AND_BRANCH, "if h.sum()"),
    ]
    assert {(m["name"], m["status"]) for m in entry["modules"]} == {
        ("Net", "failed"),
        ("Net@compile", "compiled"),
    }


def test_a_forward_under_the_compile_decorator_is_checked_as_compiled(tmp_path: Path) -> None:
    (tmp_path / "head.py").write_text(DECORATED_FORWARD)
    out = run_cli("head.py", "--no-cache", "--format", "json", cwd=tmp_path)
    (entry,) = json.loads(out.stdout)["files"]
    assert [(d["code"], d["range"]["start"]["line"]) for d in entry["diagnostics"]] == [
        ("compile-graph-break-fullgraph", line_of(DECORATED_FORWARD, 'print("head"'))
    ]
    (module,) = entry["modules"]
    assert module["inputs"] == "compile-call" and module["compile"]["fullgraph"] is True


def test_a_sequence_length_pinned_in_forward_recompiles_on_every_length(tmp_path: Path) -> None:
    (tmp_path / "tagger.py").write_text(SEQUENCE_PINNED)
    out = run_cli("tagger.py", "--no-cache", "--format", "json", cwd=tmp_path)
    (entry,) = json.loads(out.stdout)["files"]
    (recompile,) = entry["diagnostics"]  # the batch size is not pinned: no finding for it
    assert recompile["code"] == "compile-recompile"
    assert recompile["range"]["start"]["line"] == line_of(SEQUENCE_PINNED, "for t in range(tokens.shape[1])")
    assert "recompiles for each new sequence length (called with sizes 6, 7, 8)" in recompile["message"]
    assert (
        "`torch._dynamo.mark_dynamic(tokens, 1)` before each call makes torch raise" in recompile["message"]
    )


def test_a_compiled_function_is_checked_with_its_first_call(tmp_path: Path) -> None:
    (tmp_path / "step.py").write_text(FUNCTION_COMPILED)
    (tmp_path / "gate.py").write_text(DECORATED_FUNCTION)
    out = run_cli("step.py", "gate.py", "--no-cache", "--format", "json", cwd=tmp_path)
    step, gate = sorted(json.loads(out.stdout)["files"], key=lambda f: Path(f["path"]).name != "step.py")
    assert [(d["code"], d["severity"], d["range"]["start"]["line"]) for d in step["diagnostics"]] == [
        ("compile-graph-break", "warning", line_of(FUNCTION_COMPILED, 'print("step"'))
    ]
    assert step["diagnostics"][0]["message"].startswith("torch.compile: graph break in `step`:")
    (module,) = step["modules"]
    assert (module["name"], module["inputs"]) == ("step", "compile-call")
    assert module["compile"] == {"graphs": 2, "breaks": 1, "recompiles": 0, "fullgraph": False}
    # `@torch.compile(fullgraph=True)`, called in the `__main__` block after a statement it needs
    assert [(d["code"], d["severity"], d["range"]["start"]["line"]) for d in gate["diagnostics"]] == [
        ("compile-graph-break-fullgraph", "error", line_of(DECORATED_FUNCTION, "if h.sum() > 0:"))
    ]
    assert out.returncode == 1, out.stdout + out.stderr
