"""A non-Python path named on the command line (issue 42, item 6): `exportlens check pyproject.toml`
skips it with a note instead of reporting a syntax error; a Python script without `.py` (a shebang,
as pre-commit's `types: [python]` passes it) is still checked, and a folder walk reads only Python
files. Through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_cli import CLEAN, run_cli

PYPROJECT = '[project]\nname = "demo"\nversion = "0.1"\n'


def test_a_named_pyproject_is_skipped_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (tmp_path / "good.py").write_text(CLEAN, encoding="utf-8")
    done = run_cli("pyproject.toml", "good.py", "--no-cache", "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "skipped pyproject.toml: not a Python file" in done.stderr, done.stderr
    files = json.loads(done.stdout)["files"]
    assert [Path(f["path"]).name for f in files] == ["good.py"], files
    assert not [d for f in files for d in f["diagnostics"] if d["code"] == "syntax-error"], files


def test_a_python_script_without_suffix_and_a_folder_walk(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not python (\n", encoding="utf-8")
    (tmp_path / "train").write_text("#!/usr/bin/env python3\n" + CLEAN, encoding="utf-8")
    done = run_cli("train", "--no-cache", "--format", "json", cwd=tmp_path)
    assert done.returncode == 0 and "skipped" not in done.stderr, done.stdout + done.stderr
    assert [Path(f["path"]).name for f in json.loads(done.stdout)["files"]] == ["train"]
    (tmp_path / "good.py").write_text(CLEAN, encoding="utf-8")
    walked = run_cli(".", "--no-cache", "--format", "json", cwd=tmp_path)
    assert walked.returncode == 0, walked.stdout + walked.stderr
    assert [Path(f["path"]).name for f in json.loads(walked.stdout)["files"]] == ["good.py"]
