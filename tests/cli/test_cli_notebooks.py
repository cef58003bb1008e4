"""`exportlens check` on Jupyter notebooks: the cell named as ruff names it, JSON and SARIF with the
cell and cell-relative ranges, folders walked for `.ipynb`, and a training cell that never runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli.test_cli import run_cli
from tests.paths import ROOT

GUARDED = ROOT / "tests" / "data" / "notebooks" / "guarded.ipynb"
CANARY = "TRAINING_CELL_RAN.pth"  # what guarded.ipynb's training cell writes


def _notebook(folder: Path, *cells: str) -> Path:
    raw = [{"cell_type": "code", "metadata": {}, "outputs": [], "source": c} for c in cells]
    path = folder / "nb.ipynb"
    path.write_text(json.dumps({"cells": raw, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


@pytest.mark.slow
def test_guarded_notebook_names_the_cell_and_never_trains(tmp_path: Path) -> None:
    shutil.copy(GUARDED, tmp_path / "guarded.ipynb")
    text = run_cli("guarded.ipynb", "--no-cache", cwd=tmp_path)
    assert text.returncode == 1, text.stderr
    first = text.stdout.splitlines()[0]
    # The `if` is line 4 of the notebook's second cell (1-based, every cell counted).
    assert first.startswith("guarded.ipynb:cell 2:4:12: error[data-dependent-branch]:"), text.stdout
    # The training cell (cell 3) writes a checkpoint and raises: it never ran.
    assert "training cell ran" not in text.stdout + text.stderr
    assert not (tmp_path / CANARY).exists() and not (ROOT / CANARY).exists()

    # A folder: its notebooks are checked too; JSON and SARIF say the cell and the range in it.
    report = json.loads(run_cli(".", "--no-cache", "--format", "json", cwd=tmp_path).stdout)
    (found,) = [d for f in report["files"] for d in f["diagnostics"] if d["code"] == "data-dependent-branch"]
    assert found["path"] == "guarded.ipynb" and found["cell"] == 2
    assert found["range"]["start"] == {"line": 3, "character": 11}
    sarif = json.loads(run_cli("guarded.ipynb", "--no-cache", "--format", "sarif", cwd=tmp_path).stdout)
    (result,) = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "data-dependent-branch"]
    location = result["locations"][0]
    assert location["properties"] == {"cell": 2}
    assert location["physicalLocation"]["region"]["startLine"] == 4
    assert not (tmp_path / CANARY).exists()


@pytest.mark.slow
def test_a_name_only_a_skipped_cell_binds_is_said_not_run(tmp_path: Path) -> None:
    canary = tmp_path / "loaded.txt"
    _notebook(
        tmp_path,
        "import torch\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x * 2\n",
        f"open({str(canary)!r}, 'w').write('ran')\ndata = torch.load('batch.pt')\n",
        "torch.export.export(Net(), (data,))\n",
    )
    out = run_cli("nb.ipynb", "--no-cache", cwd=tmp_path)
    lines = out.stdout.splitlines()
    assert any(
        line.startswith("nb.ipynb:cell 3:1:29: information[notebook-skipped-name]: `data`") for line in lines
    ), out.stdout
    assert not canary.exists()


@pytest.mark.slow
def test_a_file_that_is_no_notebook_is_said_not_crashed_on(tmp_path: Path) -> None:
    (tmp_path / "bad.ipynb").write_text("not json")
    out = run_cli(".", "--no-cache", cwd=tmp_path)
    assert out.stdout.startswith("bad.ipynb:1:1: error[syntax-error]: Cannot read this notebook"), out.stdout


# The usual shape (pytorch/tutorials' quickstart_tutorial.py, as a notebook): the model's class, a
# cell that builds it and trains it, then the export cell, which reads the trained `model`.
QUICKSTART = (
    "import torch\nfrom torch import nn\n",
    "class NeuralNetwork(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.flatten = nn.Flatten()\n        self.fc = nn.Linear(28 * 28, 10)\n\n"
    "    def forward(self, x):\n        h = self.fc(self.flatten(x))\n        if h.sum() > 0:\n"
    "            return h\n        return -h\n",
    'device = "cuda" if torch.cuda.is_available() else "cpu"\nmodel = NeuralNetwork().to(device)\n'
    "loss_fn = nn.CrossEntropyLoss()\noptimizer = torch.optim.SGD(model.parameters(), lr=1e-3)\n"
    "batches = torch.load('train_batches.pt')\nfor X, y in batches:\n"
    "    loss = loss_fn(model(X), y)\n    loss.backward()\n    optimizer.step()\n",
    "x = torch.randn(1, 28, 28)\nprogram = torch.export.export(model.eval(), (x,))\n",
)


@pytest.mark.slow
def test_a_notebook_that_trains_first_is_checked_in_its_model_cell(tmp_path: Path) -> None:
    """The cell that builds `model` and trains it: `model = NeuralNetwork().to(device)` runs, the
    training loop and the batches' `torch.load` do not; the refusal lands in the model's cell, and
    the export cell says nothing false."""
    _notebook(tmp_path, *QUICKSTART)
    out = run_cli("nb.ipynb", "--no-cache", "--format", "json", cwd=tmp_path)
    assert out.returncode == 1, out.stdout + out.stderr
    found = [(d["cell"], d["range"]["start"]["line"], d["code"]) for f in json.loads(out.stdout)["files"]
             for d in f["diagnostics"]]  # fmt: skip
    assert found == [(2, 8, "data-dependent-branch")], found  # `if h.sum() > 0:`, nothing else
