"""Compile checks on public model code of the real-code corpus (tests/data/realcode/corpus/README.md):
each case's `compile_<case>.py`, the script a user would write, through the CLI and the real worker.

Torch's own verdict, read by hand from `TORCH_LOGS=graph_breaks` running each script with
`torch.compile(..., backend="eager")` on torch 2.13.0 ("Graph break in user code at <file>:<line>"),
never from ExportLens's output.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_cli import run_cli
from tests.conftest import WORKER_PYTHON

CORPUS = Path(__file__).resolve().parents[1] / "data" / "realcode" / "corpus"

# (case, script) -> (the file, the line torch's graph break is at (1-based), torch's graph-break id)
TORCH_SAYS = {
    # torchaudio's Conformer: `int(torch.max(lengths).item())` building the padding mask (gb0124)
    ("conformer", "compile_conformer.py"): ("conformer.py", 18, "gb0124"),
    # Mistral's MoE: `torch.where(selected_experts == i)` in the loop over experts (a nonzero)
    ("moe", "compile_moe.py"): ("moe.py", 36, None),
    # the same layer compiled and called inside a script's `def main():`
    ("moe", "train_moe.py"): ("moe.py", 36, None),
}


@pytest.mark.parametrize(("case", "script"), sorted(TORCH_SAYS))
def test_the_break_torch_reports_is_a_warning_on_its_line(case: str, script: str) -> None:
    folder = CORPUS / case
    out = run_cli(script, "--no-cache", "--format", "json", cwd=folder, python=WORKER_PYTHON)
    assert out.returncode == 0, out.stdout + out.stderr
    found = [d for f in json.loads(out.stdout)["files"] for d in f["diagnostics"]]
    path, line, gb_id = TORCH_SAYS[case, script]
    assert [(Path(d["path"]).name, d["range"]["start"]["line"] + 1, d["code"]) for d in found] == [
        (path, line, "compile-graph-break")
    ]
    if gb_id:
        assert found[0]["url"].endswith(f"/gb/{gb_id}.html")
