"""`exportlens check` as a user runs it: formats, exit codes, interpreters."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import torch

from tests.paths import ROOT

FAILING = """
import torch

class Guarded(torch.nn.Module):
    def forward(self, x):
        print("USER-PRINT-MARKER", x.shape)
        if (x < 0).any():
            return x.abs()
        return x.tanh()

    def example_inputs(self):
        return (torch.ones(3),)
"""
CLEAN = """
import torch

class Fine(torch.nn.Module):
    def forward(self, x):
        return x.relu()

    def example_inputs(self):
        return (torch.ones(3),)
"""


def run_cli(
    *args: str, cwd: Path, python: str | None = None, cache: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "server"))
    if cache is not None:
        env["EXPORTLENS_CACHE_DIR"] = str(cache)
    command = [sys.executable, "-m", "exportlens", "check", *args]
    if python:
        command += ["--python", python]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_text_format_and_exit_codes(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text(FAILING)
    (tmp_path / "good.py").write_text(CLEAN)
    failing = run_cli(".", cwd=tmp_path)
    assert failing.returncode == 1, failing.stderr
    lines = failing.stdout.splitlines()
    # Compiler style, 1-based, relative to the working folder; user prints never reach stdout.
    assert lines[0].startswith("bad.py:") and ": error[" in lines[0]
    assert "USER-PRINT-MARKER" not in failing.stdout
    assert lines[-2].startswith("2 file(s): 1 module export(s) succeeded, 1 failed")
    assert lines[-1] == "2 module(s): 2 checked (2 on their own inputs), 1 with findings"
    clean = run_cli("good.py", cwd=tmp_path)
    assert clean.returncode == 0 and "0 error(s)" in clean.stdout
    # both tracers check each module: still one module, once, in each count (issue 42)
    both = run_cli(".", "--mode", "both", cwd=tmp_path)
    assert both.stdout.splitlines()[-2].startswith("2 file(s): 1 module export(s) succeeded, 1 failed"), (
        both.stdout
    )


def test_json_format(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text(FAILING)
    out = run_cli("bad.py", "--format", "json", "--mode", "strict", cwd=tmp_path)
    assert out.returncode == 1, out.stderr
    report = json.loads(out.stdout)
    assert report["torch"] == torch.__version__.split("+")[0]
    assert report["python"] == ".".join(map(str, sys.version_info[:3]))
    (file_entry,) = report["files"]
    assert file_entry["path"] == "bad.py"
    (module,) = file_entry["modules"]
    assert module["name"] == "Guarded" and module["line"] == 3
    assert (module["inputs"], module["mode"], module["status"]) == ("example-inputs", "strict", "failed")
    assert isinstance(module["seconds"], float) and module["ops"] is None
    diagnostic = file_entry["diagnostics"][0]
    assert set(diagnostic) >= {"range", "severity", "code", "source", "message", "module", "mode", "related"}
    assert diagnostic["source"] == "exportlens" and diagnostic["module"] == "Guarded"
    assert set(diagnostic["range"]["start"]) == {"line", "character"}


def test_sarif_format(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text(FAILING)
    out = run_cli("bad.py", "--format", "sarif", cwd=tmp_path)
    log = json.loads(out.stdout)
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    result = run["results"][0]
    assert result["level"] == "error"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "bad.py"
    assert location["region"]["startLine"] >= 1
    assert {rule["id"] for rule in run["tool"]["driver"]["rules"]} == {r["ruleId"] for r in run["results"]}


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    missing = run_cli("nope.py", cwd=tmp_path)
    assert missing.returncode == 2 and "no such file" in missing.stderr
    bad_flag = run_cli("--format", "xml", "x.py", cwd=tmp_path)
    assert bad_flag.returncode == 2
    no_torch = run_cli(".", cwd=tmp_path, python="/bin/false")
    assert no_torch.returncode == 2 and "--python" in no_torch.stderr


def test_interpreter_with_torch_but_without_exportlens(tmp_path: Path) -> None:
    """The worker's code travels with the engine: the target interpreter needs torch only."""
    site = Path(torch.__file__).resolve().parent.parent
    wrapper = tmp_path / "torch-only-python"
    # -S: no site processing, so no .pth file (an editable exportlens install) is read.
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH="{site}" exec "{sys.executable}" -S "$@"\n')
    wrapper.chmod(0o755)
    probe = subprocess.run([str(wrapper), "-c", "import exportlens"], capture_output=True, text=True)
    assert probe.returncode != 0 and "No module named 'exportlens'" in probe.stderr
    assert subprocess.run([str(wrapper), "-c", "import torch"], capture_output=True).returncode == 0
    (tmp_path / "good.py").write_text(CLEAN)
    out = run_cli("good.py", "--format", "json", cwd=tmp_path, python=str(wrapper))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["files"][0]["modules"][0]["status"] == "exported"


def test_export_script_of_a_src_layout(tmp_path: Path) -> None:
    """`scripts/export.py` imports `lay.net` from `src/lay/net.py`, as an editable install allows:
    run from the project root, the script's failure lands on the model's line."""
    (tmp_path / "src" / "lay").mkdir(parents=True)
    (tmp_path / "src" / "lay" / "__init__.py").write_text("")
    (tmp_path / "src" / "lay" / "net.py").write_text(
        "import torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n"
        "        if x.sum() > 0:\n            return x\n        return -x\n"
    )
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "export.py").write_text(
        "import torch\n\nfrom lay.net import Net\n\nif __name__ == '__main__':\n"
        "    torch.export.export(Net(), (torch.randn(3),))\n"
    )
    result = run_cli("scripts/export.py", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "src/lay/net.py:6:12: error[data-dependent-branch]" in result.stdout, result.stdout


MARKED = """
import pathlib

import torch

from helpers import SCALE

pathlib.Path(__file__).with_name("imported.mark").touch()  # the file was imported: an export ran


class Gate(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * SCALE
        return x


if __name__ == "__main__":
    torch.export.export(Gate(), (torch.ones(3),))
"""


def test_unchanged_files_come_from_the_cache(tmp_path: Path) -> None:
    """A second run on an unchanged tree exports nothing (the model, which marks each import, is
    not imported) and reports the same; a change in an imported helper file, or --no-cache, runs
    the export again."""
    cache = tmp_path / "cache"
    (tmp_path / "helpers.py").write_text("SCALE = 2\n")
    (tmp_path / "gate.py").write_text(MARKED)
    mark = tmp_path / "imported.mark"
    first = run_cli("gate.py", "--format", "json", cwd=tmp_path, cache=cache)
    assert first.returncode == 1 and mark.exists(), first.stderr
    mark.unlink()
    second = run_cli("gate.py", "--format", "json", cwd=tmp_path, cache=cache)
    assert second.returncode == 1 and not mark.exists(), second.stderr
    assert json.loads(second.stdout)["files"] == json.loads(first.stdout)["files"]
    assert "1 of 1 file(s) unchanged" in second.stderr, second.stderr
    (tmp_path / "helpers.py").write_text("SCALE = 3\n")
    third = run_cli("gate.py", cwd=tmp_path, cache=cache)
    assert third.returncode == 1 and mark.exists(), third.stderr
    mark.unlink()
    forced = run_cli("gate.py", "--no-cache", cwd=tmp_path, cache=cache)
    assert forced.returncode == 1 and mark.exists(), forced.stderr


HANGS = """
import torch

class Spins(torch.nn.Module):
    def forward(self, x):
        while True:
            x = x + 1

    def example_inputs(self):
        return (torch.ones(3),)
"""


def test_a_check_that_times_out_exits_3(tmp_path: Path) -> None:
    """A timeout is no error (torch may well export it) but not a pass either: CI must see it."""
    (tmp_path / "hangs.py").write_text(HANGS)
    (tmp_path / "good.py").write_text(CLEAN)
    out = run_cli(".", "--timeout", "4", "--no-cache", cwd=tmp_path)
    assert out.returncode == 3, out.stdout + out.stderr
    assert "warning[export-timeout]" in out.stdout
    (tmp_path / "bad.py").write_text(FAILING)  # an error outranks it: 1
    assert run_cli(".", "--timeout", "4", "--no-cache", cwd=tmp_path).returncode == 1


def test_a_reader_that_stops_early(tmp_path: Path) -> None:
    """`exportlens check . | head`: the reader is gone before the report is written. No
    BrokenPipeError traceback, and the exit status is still the check's."""
    (tmp_path / "bad.py").write_text(FAILING)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "server"))
    command = [sys.executable, "-m", "exportlens", "check", ".", "--no-cache"]
    with subprocess.Popen(
        command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as cli:
        assert cli.stdout is not None and cli.stderr is not None
        cli.stdout.close()  # as `head` does once it has its lines, long before the report
        stderr = cli.stderr.read()
        assert cli.wait(timeout=300) == 1, stderr
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr
