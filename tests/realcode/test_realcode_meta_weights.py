"""A model built on meta weights "succeeds" (issue 42, item 6): the clean export says, as information,
that it never ran on real memory and what was not checked. karpathy/nanoGPT's model.py
(tests/realcode/nanogpt_model.py: its shape, a tiny config, random init, nothing downloaded), exported
by a script as its README does, through the real CLI and worker."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_cli import run_cli
from tests.realcode.nanogpt_model import NANOGPT_MODEL

pytestmark = pytest.mark.slow
EXPORT = """
import torch
from model import GPT, GPTConfig

config = GPTConfig(block_size=16, vocab_size=64, n_layer=1, n_head=2, n_embd=16)
{build}
program = torch.export.export(model, (idx,))
"""
REAL = "model = GPT(config).eval()\nidx = torch.randint(0, 64, (1, 8))"
ON_META = (
    'with torch.device("meta"):\n    model = GPT(config).eval()\n'
    'idx = torch.randint(0, 64, (1, 8), device="meta")'
)


def _notes(tmp_path: Path, build: str, *options: str) -> list[dict[str, Any]]:
    (tmp_path / "model.py").write_text(textwrap.dedent(NANOGPT_MODEL).lstrip(), encoding="utf-8")
    (tmp_path / "export.py").write_text(
        textwrap.dedent(EXPORT).lstrip().format(build=build), encoding="utf-8"
    )
    done = run_cli("export.py", "--no-cache", "--format", "json", *options, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    found = [d for f in json.loads(done.stdout)["files"] for d in f["diagnostics"]]
    assert all(d["severity"] != "error" for d in found), found
    return [d for d in found if d["code"] == "meta-weights"]


def test_above_the_threshold_the_export_says_it_never_ran_on_real_memory(tmp_path: Path) -> None:
    (note,) = _notes(tmp_path, REAL, "--meta-above", "0.01")  # ~0.01 MB: the tiny GPT is above it
    assert note["severity"] == "information", note
    message = note["message"]
    assert "exported with meta weights" in message and "above the meta-weights threshold" in message, message
    assert "never ran on real memory" in message and "no number was computed" in message, message
    assert "--meta-above" in message, message


def test_weights_the_code_puts_on_meta_are_said(tmp_path: Path) -> None:
    (note,) = _notes(tmp_path, ON_META)
    assert "the module's code leaves its weights on the meta device" in note["message"], note


def test_real_weights_say_nothing(tmp_path: Path) -> None:
    assert _notes(tmp_path, REAL) == []
