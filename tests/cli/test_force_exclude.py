"""`--force-exclude` (issue 42, item 2): a file named on the command line that `exclude` matches
is skipped, as ruff's; the shipped pre-commit hooks pass it, since pre-commit names every file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from exportlens.cli import explicit_settings, python_files
from tests.cli.test_cli import run_cli
from tests.paths import ROOT

BRANCH = """
import torch


class Cait(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x + 1
        return x - 1


if __name__ == "__main__":
    torch.export.export(Cait(), (torch.randn(2, 3),))
"""

CLEAN = """
import torch


class Net(torch.nn.Module):
    def forward(self, x):
        return x * 2


if __name__ == "__main__":
    torch.export.export(Net(), (torch.randn(2, 3),))
"""


def project(tmp_path: Path, force: bool = False) -> tuple[Path, Path]:
    setting = "force-exclude = true\n" if force else ""
    (tmp_path / "pyproject.toml").write_text(f'[tool.exportlens]\nexclude = ["models/cait.py"]\n{setting}')
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "cait.py").write_text(BRANCH.lstrip("\n"))
    (tmp_path / "models" / "net.py").write_text(CLEAN.lstrip("\n"))
    return tmp_path / "models" / "cait.py", tmp_path / "models" / "net.py"


def settings_of(*flags: str) -> dict[str, object]:
    from exportlens.cli import build_parser

    return explicit_settings(build_parser().parse_args(["check", "x.py", *flags]))


def test_a_named_file_is_checked_unless_forced(tmp_path: Path) -> None:
    cait, net = project(tmp_path)
    named = [str(cait), str(net)]
    assert python_files(named, settings_of()) == [cait, net], "named: checked wherever it is"
    assert python_files(named, settings_of("--force-exclude")) == [net]


def test_force_exclude_from_pyproject(tmp_path: Path) -> None:
    cait, net = project(tmp_path, force=True)
    assert python_files([str(cait), str(net)], settings_of()) == [net]


def hook_entries() -> list[list[str]]:
    text = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    return [line.split() for line in re.findall(r"^\s*entry:\s*(.+)$", text, re.M)]


def test_the_shipped_hooks_pass_force_exclude() -> None:
    entries = hook_entries()
    assert entries and all(e[:2] == ["exportlens", "check"] and "--force-exclude" in e for e in entries)


@pytest.mark.slow
def test_a_pre_commit_run_skips_the_excluded_file(tmp_path: Path) -> None:
    """As pre-commit runs the hook: its entry, the user's args, then each changed file by name."""
    project(tmp_path)
    entry = hook_entries()[0]
    done = run_cli(*entry[2:], "models/cait.py", "models/net.py", cwd=tmp_path, cache=tmp_path / ".cache")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "cait" not in done.stdout.lower() and "1 file(s)" in done.stdout, done.stdout
