"""Out of memory on the real worker (issue 42, item 6): a refused allocation is said as refused, with
its size, on the line that allocated, and the memory limit only when one was set."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

from tests.cli.test_cli import run_cli

BIG = """
import torch
from torch import nn


class Big(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.empty({count}, dtype=torch.float32)

    def forward(self, x):
        return x + 1

    def example_inputs(self):
        return (torch.ones(2),)
"""
ALLOCATES = (
    textwrap.dedent(BIG)
    .lstrip("\n")
    .splitlines()
    .index("        self.table = torch.empty({count}, dtype=torch.float32)")
)


def _finding(tmp_path: Path, count: int, *options: str) -> dict[str, Any]:
    (tmp_path / "big.py").write_text(textwrap.dedent(BIG.format(count=count)).lstrip("\n"), encoding="utf-8")
    done = run_cli("big.py", "--device", "cpu", "--no-cache", "--format", "json", *options, cwd=tmp_path)
    report = json.loads(done.stdout)
    (found,) = [d for f in report["files"] for d in f["diagnostics"] if d["code"] == "out-of-memory"]
    assert found["range"]["start"]["line"] == ALLOCATES, found
    return found


def test_refused_allocation_without_a_limit(tmp_path: Path) -> None:
    # 256 TB: more than any machine's user address space, so refused everywhere.
    message = _finding(tmp_path, 2**46)["message"]
    assert "allocation of 256.0 TB was refused" in message, message
    assert "no memory limit is set" in message and "ran out of the memory limit" not in message, message


def test_configured_limit_is_said(tmp_path: Path) -> None:
    message = _finding(tmp_path, 2**28, "--memory-limit", "300")["message"]  # 1 GB under a 300 MB cap
    assert "ran out of the memory limit (300 MB" in message, message
    assert "no memory limit is set" not in message, message
