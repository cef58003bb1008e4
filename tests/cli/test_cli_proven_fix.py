"""The CLI prints the fix proven on the code, or none (issue 40, item 4): never the code's generic
advice (`Fix: use torch.cond(...)`) where the rewrite does not export."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_cli import run_cli

BRANCHES = """
import torch
from torch import nn


class Provable(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x + 1
        return x - 1


class Unprovable(nn.Module):
    def forward(self, x):
        if x.sum() > 0:  # torch.cond's branches must give one dtype
            return x.long()
        return x


if __name__ == "__main__":
    torch.export.export(Provable(), (torch.randn(4, 8),))
    torch.export.export(Unprovable(), (torch.randn(4, 8),))
"""


def test_the_proven_fix_or_none_is_printed(tmp_path: Path) -> None:
    (tmp_path / "branches.py").write_text(BRANCHES.lstrip("\n"), encoding="utf-8")
    done = run_cli("branches.py", "--no-cache", "--format", "json", cwd=tmp_path)
    (file,) = json.loads(done.stdout)["files"]
    proofs = {d["module"]: d["proof"] for d in file["diagnostics"]}
    assert proofs["Provable"]["fix"] == "Rewrite as torch.cond (exports; matches eager on both branches)"
    assert len(proofs["Provable"]["key"]) == 16, "which candidate was proven: what --fix applies"
    assert proofs["Unprovable"]["fix"] is None, proofs
    (refused,) = proofs["Unprovable"]["refused"]
    assert refused.startswith("Rewrite as torch.cond (does not export: "), refused
    # The text report, from the results store: the same words in place of the advice.
    text = run_cli("branches.py", cwd=tmp_path).stdout.splitlines()
    provable, unprovable = [line for line in text if "error[data-dependent-branch]" in line]
    assert provable.endswith(
        " Fix (proven): Rewrite as torch.cond (exports; matches eager on both branches)."
    )
    assert f" No fix proven: {refused}." in unprovable and "Fix:" not in unprovable, unprovable
