"""A syntax error through the real CLI (issue 42, item 6): `file:line:col` names Python's own
column for it, the one ruff and `python file.py` name, not where the line's text starts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.cli.test_cli import run_cli

BROKEN = (
    "import torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n"
    "        return torch.relu(x)) + 1\n"
)


def test_the_column_is_pythons(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text(BROKEN, encoding="utf-8")
    python = subprocess.run([sys.executable, "bad.py"], cwd=tmp_path, capture_output=True, text=True)
    assert "SyntaxError: unmatched ')'" in python.stderr, python.stderr
    column = BROKEN.splitlines()[5].index("))") + 2  # 1-based: the second `)`
    done = run_cli("bad.py", "--no-cache", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.startswith(f"bad.py:6:{column}: error[syntax-error]:"), done.stdout
