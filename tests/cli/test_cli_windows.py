"""The CLI on native Windows (as tests/windows_standin.py stands in for it): one message says
exports need Linux, WSL or macOS, then the static findings; no traceback, no export."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from exportlens.platforms import EXPORTS_NEED
from tests.paths import ROOT

STANDIN = str(ROOT / "tests" / "windows_standin.py")

NEEDS_ARGS = """
import torch


class Net(torch.nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = torch.nn.Linear(width, 2)

    def forward(self, x):
        return self.fc(x)


class Double(torch.nn.Module):
    def forward(self, x):
        return x * 2

    def example_inputs(self):
        return (torch.ones(2),)
"""


def standin(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT / "server"), "HOME": str(cwd)}
    return subprocess.run(
        [sys.executable, STANDIN, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def test_one_message_then_the_static_findings(tmp_path: Path) -> None:
    (tmp_path / "net.py").write_text(NEEDS_ARGS)
    out = standin("check", "--format", "json", "net.py", cwd=tmp_path)
    assert out.stderr.splitlines() == [
        "exportlens: exports need Linux, WSL or macOS: on native Windows ExportLens only runs its static"
        " checks (syntax errors, modules without example inputs). Run it inside WSL (VS Code: open the"
        " folder with the WSL extension) to see where torch.export refuses your modules."
    ]
    (result,) = json.loads(out.stdout)["files"]
    assert [(d["code"], d["module"]) for d in result["diagnostics"]] == [("no-example-inputs", "Net")]
    # a static finding links its code's section as the worker's do
    assert result["diagnostics"][0]["url"].endswith("docs/codes.md#no-example-inputs"), result["diagnostics"]
    assert result["modules"] == [], "nothing was exported"
    assert out.returncode == 3, "no error, but whether `Double` exports is not known"


def test_nothing_to_export_is_clean(tmp_path: Path) -> None:
    (tmp_path / "net.py").write_text(NEEDS_ARGS.split("class Double")[0])
    out = standin("check", "net.py", cwd=tmp_path)
    assert out.returncode == 0 and "information[no-example-inputs]" in out.stdout, out.stdout + out.stderr


def test_a_syntax_error_is_still_an_error(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("def f(:\n")
    out = standin("check", "broken.py", cwd=tmp_path)
    assert out.returncode == 1 and "error[syntax-error]" in out.stdout, out.stdout + out.stderr


def test_the_extension_names_the_same_platforms() -> None:
    """Its status item and notification (extension/src/platform.ts) say it before the server runs."""
    platform_ts = (ROOT / "extension" / "src" / "platform.ts").read_text()
    assert f"export const EXPORTS_NEED = '{EXPORTS_NEED}';" in platform_ts
