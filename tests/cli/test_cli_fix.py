"""`exportlens check --fix` / `--diff` (issue 42, item 1), through the real CLI and worker: the
proven fixes are applied, file by file, as one write each; torch itself then exports the folder;
`--diff` shows the same edits and writes nothing; a fix the proof refused is never applied nor
said as the fix."""

from __future__ import annotations

import difflib
from pathlib import Path

from tests.cli.test_cli import run_cli
from tests.paths import ROOT
from tests.worker_torch import WorkerTorch

# Unprovable: torch.cond's branches must give one dtype, the rewrite's proof fails
# (tests/cli/test_cli_proven_fix.py). Listy: its branches write into a list in place, the rewrite
# is refused before any proof (the case).
REFUSED = """
import torch
from torch import nn


class Unprovable(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x.long()
        return x


class Listy(nn.Module):
    def forward(self, x):
        out = []
        if x.sum() > 0:
            out.append(x + 1)
        else:
            out.append(x - 1)
        return out[0]


if __name__ == "__main__":
    torch.export.export(Unprovable(), (torch.randn(4, 8),))
    torch.export.export(Listy(), (torch.randn(4),))
"""

# Two findings in one file: two proven fixes, applied in turn, one write.
TWO = """
import torch
from torch import nn


class Positive(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x + 1
        return x - 1


class Negative(nn.Module):
    def forward(self, x):
        if x.mean() < 0:
            return x * 2
        return x / 2


if __name__ == "__main__":
    torch.export.export(Positive(), (torch.randn(4, 8),))
    torch.export.export(Negative(), (torch.randn(4, 8),))
"""

FIXABLE = ("guarded.py", "tiny_example.py", "two.py")


def folder(tmp_path: Path) -> dict[str, bytes]:
    for name in ("guarded.py", "tiny_example.py"):
        (tmp_path / name).write_bytes((ROOT / "examples" / name).read_bytes())
    (tmp_path / "refused.py").write_text(REFUSED.lstrip("\n"), encoding="utf-8")
    (tmp_path / "two.py").write_text(TWO.lstrip("\n"), encoding="utf-8")
    return {p.name: p.read_bytes() for p in tmp_path.glob("*.py")}


def exports(worker_torch: WorkerTorch, path: Path) -> bool:
    """torch itself: the file's own `__main__` block (its export calls) runs without an error."""
    code = f"import runpy\nrunpy.run_path({str(path)!r}, run_name='__main__')\nresult = True\n"
    return bool(worker_torch.run(code))


def test_fix_leaves_a_folder_that_exports(tmp_path: Path, worker_torch: WorkerTorch) -> None:
    before = folder(tmp_path)
    cache = tmp_path / ".cache"
    shown = run_cli(".", "--diff", cwd=tmp_path, cache=cache)
    assert shown.returncode == 1, shown.stderr  # ruff's: a file would change
    assert {p.name: p.read_bytes() for p in tmp_path.glob("*.py")} == before, "--diff writes nothing"
    assert "--- a/refused.py" not in shown.stdout and "x.long()" not in shown.stdout, shown.stdout
    assert "would fix: Rewrite as torch.cond" in shown.stderr, shown.stderr

    fixed = run_cli(".", "--fix", cwd=tmp_path, cache=cache)
    after = {p.name: p.read_bytes() for p in tmp_path.glob("*.py")}
    assert after["refused.py"] == before["refused.py"], "a refused proof is never applied"
    assert all(after[name] != before[name] for name in FIXABLE), fixed.stderr
    # The re-check: only the refused file's finding is left, and it never says the refused rewrite.
    assert fixed.returncode == 1, fixed.stdout + fixed.stderr
    unprovable, listy = [line for line in fixed.stdout.splitlines() if ": error[" in line]
    assert unprovable.startswith("refused.py:") and listy.startswith("refused.py:"), fixed.stdout
    assert "No fix proven: Rewrite as torch.cond (does not export" in unprovable, unprovable
    assert "No fix proven: Rewrite as torch.cond: " in listy and "`out.append()` mutates" in listy, listy
    assert all("Fix (proven)" not in line and "Fix: use" not in line for line in (unprovable, listy))
    assert "4 proven fix(es) in 3 file(s) applied" in fixed.stderr, fixed.stderr
    assert fixed.stderr.count("two.py: fixed: Rewrite as torch.cond") == 2, fixed.stderr

    # --diff showed exactly these edits.
    diffs = "".join(
        "".join(
            difflib.unified_diff(
                before[name].decode().splitlines(keepends=True),
                after[name].decode().splitlines(keepends=True),
                fromfile=f"a/{name}",
                tofile=f"b/{name}",
            )
        )
        for name in sorted(FIXABLE)
    )
    assert shown.stdout == diffs
    # torch itself exports what --fix left.
    for name in FIXABLE:
        assert exports(worker_torch, tmp_path / name), name
    # Nothing proven left: --diff prints nothing and passes (ruff's).
    nothing = run_cli("refused.py", "--diff", cwd=tmp_path, cache=cache)
    assert (nothing.returncode, nothing.stdout) == (0, ""), nothing.stderr
