"""`exportlens check` on an ordinary project: only the user's files, suppression comments, and
`[tool.exportlens]` in pyproject.toml (config/)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from exportlens.config.files import walk
from tests.cli.test_cli import run_cli
from tests.config.sources import BRANCHES, STAMPED


def project(root: Path) -> None:
    """A git checkout with a venv, a hidden venv, a git-ignored and a build folder beside src/."""
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text("generated/\n")
    for folder in ("venv/lib/python3.11/site-packages/pkg", ".venv/lib", "generated", "build", "src"):
        (root / folder).mkdir(parents=True)
        (root / folder / "model.py").write_text(BRANCHES)
    (root / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / "tools").mkdir()
    (root / "tools" / "envlike").mkdir()
    (root / "tools" / "envlike" / "pyvenv.cfg").write_text("")
    (root / "tools" / "envlike" / "x.py").write_text("")
    (root / "tools" / "gen_old.py").write_text("")


@pytest.mark.slow  # git answers what it ignores
def test_the_walk_reads_only_the_projects_own_files(tmp_path: Path) -> None:
    project(tmp_path)
    found = [p.relative_to(tmp_path).as_posix() for p in walk(str(tmp_path))]
    assert found == ["src/model.py", "tools/gen_old.py"]
    found = [p.relative_to(tmp_path).as_posix() for p in walk(str(tmp_path), ["tools/gen_*"], str(tmp_path))]
    assert found == ["src/model.py"]


def test_cli_checks_the_projects_files_and_honours_ignore_comments(tmp_path: Path) -> None:
    project(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.exportlens]\nexclude = ["tools/**"]\n')
    ran = run_cli(".", "--format", "json", "--no-cache", cwd=tmp_path)
    report = json.loads(ran.stdout)
    assert [f["path"] for f in report["files"]] == ["src/model.py"], ran.stderr
    found = [(d["code"], d["range"]["start"]["line"]) for d in report["files"][0]["diagnostics"]]
    # Gate's branch is silenced on its line; Gate2's comment names no code, so it silences nothing.
    assert found == [("data-dependent-branch", 12), ("unknown-ignore-code", 12)]
    assert ran.returncode == 1
    # A file named on the command line is checked wherever it is.
    named = run_cli("venv/lib/python3.11/site-packages/pkg/model.py", "--format", "json", cwd=tmp_path)
    assert len(json.loads(named.stdout)["files"]) == 1, named.stderr


def test_pyproject_mode_strict_and_the_flag_that_beats_it(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n\n[tool.exportlens]\nmode = "strict"\n')
    (tmp_path / "stamped.py").write_text(STAMPED)
    strict = run_cli("stamped.py", "--no-cache", cwd=tmp_path)
    assert strict.returncode == 1 and "error[untraceable-call]" in strict.stdout, (
        strict.stdout + strict.stderr
    )
    flag = run_cli("stamped.py", "--no-cache", "--mode", "non-strict", cwd=tmp_path)
    assert flag.returncode == 0 and "untraceable-call" not in flag.stdout, flag.stdout + flag.stderr
