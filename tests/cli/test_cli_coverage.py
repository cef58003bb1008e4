"""A repository as cloned says what it checked (issue 40, item 3): karpathy/nanoGPT's model.py
and train.py (tests/realcode/loop_scripts.py, nanogpt_model.py: their shapes, a tiny config,
random data, nothing downloaded) report every module class checked, the model's parts inside the
compiled GPT; the model file alone says nothing was checked and why, and exits 3 unless
`--unchecked-exit` says otherwise. Through the real CLI and worker."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.cli.test_cli import run_cli
from tests.conftest import WORKER_PYTHON
from tests.realcode.loop_scripts import NANOGPT_TRAIN, STEPPED
from tests.realcode.nanogpt_model import NANOGPT_MODEL

pytestmark = pytest.mark.slow
CLASSES = ["LayerNorm", "CausalSelfAttention", "MLP", "Block", "GPT"]


def repository(root: Path, train: bool) -> Path:
    (root / ".git").mkdir(parents=True)  # the workspace root, as a clone's
    (root / "model.py").write_text(textwrap.dedent(NANOGPT_MODEL).lstrip(), encoding="utf-8")
    if train:
        (root / "train.py").write_text(textwrap.dedent(NANOGPT_TRAIN).lstrip(), encoding="utf-8")
    return root


def test_a_cloned_repository_reports_every_module_checked(tmp_path: Path) -> None:
    root = repository(tmp_path / "nanogpt", train=True)
    done = run_cli(".", "--no-cache", "--format", "json", cwd=root, python=WORKER_PYTHON)
    assert done.returncode == 0, done.stdout + done.stderr
    covered = json.loads(done.stdout)["coverage"]
    assert covered["not_checked"] == []
    assert "model.py:GPT" in covered["checked"]["real"], covered  # through train.py's first call
    assert sorted(covered["checked"]["recorded"]) == sorted(f"model.py:{c} (inside GPT)" for c in CLASSES[:4])
    assert not (root / STEPPED).exists(), "the check ran a training step"
    text = run_cli(".", cwd=root, python=WORKER_PYTHON).stdout
    # GPT, checked through train.py's compiled call, is one module with its four parts (not once
    # per file that reports it)
    assert "5 module(s): 5 checked (1 on their own inputs, 4 as parts)" in text, text


def test_a_model_file_alone_says_nothing_was_checked(tmp_path: Path) -> None:
    root = repository(tmp_path / "nanogpt", train=False)
    done = run_cli("model.py", "--no-cache", cwd=root, python=WORKER_PYTHON)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "5 module(s): 0 checked, 5 not checked" in done.stdout
    assert "nothing was checked" in done.stdout
    (gpt,) = [line for line in done.stdout.splitlines() if line.startswith("  not checked: model.py:GPT")]
    assert "constructor needs arguments" in gpt and "example_inputs" in gpt, gpt
    passing = run_cli("model.py", "--unchecked-exit", "0", cwd=root, python=WORKER_PYTHON)
    assert passing.returncode == 0, passing.stdout + passing.stderr
