"""torch installed in another site than the interpreter's own (a `--system-site-packages` venv, a
user site, a `.pth` line: the older-transformers venv of issue 44): the search for more failures
still tells torch's frames from the code that refused, and finds each library line once."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

from tests.cli.test_cli import run_cli
from tests.conftest import line_of
from tests.paths import DATA

SCRIPT = DATA / "realcode" / "two_gates.py"
LIBRARY = DATA / "realcode" / "fakesite" / "lib" / "python3.11" / "site-packages" / "tinylib" / "__init__.py"


def _venv_seeing_this_site(folder: Path) -> str:
    """A bare venv whose own site is empty; a `.pth` line appends this interpreter's (torch)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = str(folder / "bin" / "python")
    own = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(own) / "torch-site.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


def test_each_library_refusal_is_found_once_when_torch_is_in_another_site(tmp_path: Path) -> None:
    python = _venv_seeing_this_site(tmp_path / "venv")
    out = run_cli(str(SCRIPT), "--no-cache", "--format", "json", cwd=tmp_path, python=python)
    (entry,) = json.loads(out.stdout)["files"]
    library_lines = sorted(
        r["range"]["start"]["line"]
        for d in entry["diagnostics"]
        for r in d.get("related") or []
        if Path(r["path"]).resolve() == LIBRARY.resolve()
    )
    gates = [line_of(str(LIBRARY), "if x.sum() > 0:"), line_of(str(LIBRARY), "if x.amax() > 100:")]
    assert library_lines == gates, entry["diagnostics"]
    assert [d["code"] for d in entry["diagnostics"]] == ["data-dependent-branch"] * 2
