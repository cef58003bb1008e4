"""A second client: Neovim, headless, gets ExportLens diagnostics through plain LSP.

Needs the `nvim` executable (Debian package `neovim`); without it this test FAILS: the CI
machine must install it (`apt-get install -y neovim`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from ..lsp.conftest import SERVER_DIR
from ..lsp.models import GUARDED

SCRIPT = Path(__file__).with_name("nvim_client.lua")
GUARD_SECONDS = 600  # kills a stuck nvim; never asserted on


def test_neovim_receives_a_diagnostic(tmp_path: Path) -> None:
    nvim = shutil.which("nvim")
    assert nvim, "nvim not found: install Neovim (Debian: apt-get install -y neovim) to run this test"
    model = tmp_path / "guarded.py"
    text = textwrap.dedent(GUARDED).lstrip("\n")
    model.write_text(text, encoding="utf-8")
    out = tmp_path / "diagnostics.json"
    env = dict(
        os.environ,
        PYTHONPATH=SERVER_DIR,
        EXPORTLENS_NVIM_FILE=str(model),
        EXPORTLENS_NVIM_ROOT=str(tmp_path),
        EXPORTLENS_NVIM_PYTHON=sys.executable,
        EXPORTLENS_NVIM_OUT=str(out),
        EXPORTLENS_NVIM_WAIT_MS=str((GUARD_SECONDS - 60) * 1000),
        XDG_STATE_HOME=str(tmp_path / "state"),  # nvim's LSP log stays in the temp dir
        XDG_CACHE_HOME=str(tmp_path / "cache"),
    )
    run = subprocess.run(
        [nvim, "--headless", "-u", "NONE", "-c", f"luafile {SCRIPT}"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=GUARD_SECONDS,
        stdin=subprocess.DEVNULL,
    )
    assert out.exists(), (run.returncode, run.stdout[-2000:], run.stderr[-2000:])
    result = json.loads(out.read_text())
    assert result.get("ok") is True, result
    diagnostics = result["diagnostics"]
    assert [d["code"] for d in diagnostics] == ["data-dependent-branch"], diagnostics
    (d,) = diagnostics
    line = next(i for i, s in enumerate(text.splitlines()) if "if (y > 0).any():" in s)
    assert (d["lnum"], d["col"]) == (line, text.splitlines()[line].index("(y > 0)"))
    assert d["source"] == "exportlens" and d["severity"] == 1  # vim.diagnostic.severity.ERROR
    assert result["exited"] is not None and result["exited"]["code"] == 0, result
