"""A compile check's findings in torch.compile's words (issue 40, item 4), through the CLI.

nanoGPT's shape (karpathy/nanoGPT `model.py` / `train.py`, MIT, reduced to one layer): the model
file is compiled by a training script (`model = torch.compile(GPT())`, its first call `logits, loss
= model(X, Y)` inside the loop of `main()`), and the loss views a transposed tensor, which torch
refuses to view. Said as torch.compile's (never "Non-strict export ... refused"), with what `view`
raised, and the related note on the call whose inputs were used, at its own line and column. A
module compiled with no call is checked on guessed inputs: its softened finding is torch.compile's too.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from tests.cli.test_cli import run_cli

MODEL = """
import torch
from torch import nn


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.lm_head = nn.Linear(8, 8)

    def forward(self, idx, targets):
        logits = self.lm_head(idx).transpose(0, 1)
        loss = nn.functional.cross_entropy(logits.view(-1, 8), targets.view(-1))
        return logits, loss
"""
TRAIN = """
import torch

from model import GPT


def main():
    model = torch.compile(GPT())
    X = torch.randn(4, 2, 8)
    Y = torch.randint(0, 8, (2, 4)).t()
    for _ in range(2):
        logits, loss = model(X, Y)


if __name__ == "__main__":
    main()
"""
# Compiled with no call: checked on inputs guessed from its first layer, softened to information.
GUESSED = """
import torch
from torch import nn


class Logged(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x)
        print(h.shape)
        return h


model = torch.compile(Logged(), fullgraph=True)
"""


def test_a_compile_finding_says_torch_compile_and_the_call_used(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(textwrap.dedent(MODEL).lstrip("\n"), encoding="utf-8")
    (tmp_path / "train.py").write_text(textwrap.dedent(TRAIN).lstrip("\n"), encoding="utf-8")
    (tmp_path / "guessed.py").write_text(textwrap.dedent(GUESSED).lstrip("\n"), encoding="utf-8")
    done = run_cli("model.py", "guessed.py", "--root", ".", "--no-cache", "--format", "json", cwd=tmp_path)
    file, guessed = json.loads(done.stdout)["files"]
    (softened,) = guessed["diagnostics"]
    assert (softened["code"], softened["mode"]) == ("guessed-inputs-failed", "compile"), softened
    assert softened["message"].startswith("torch.compile: ExportLens guessed inputs for `Logged`")
    assert "the compiled call failed on them" in softened["message"], softened["message"]
    (finding,) = file["diagnostics"]
    assert finding["mode"] == "compile", finding
    message = finding["message"]
    assert message.startswith("torch.compile: ") and "export" not in message, message
    assert "`view` raised ValueError: Cannot view a tensor with shape" in message, message
    notes = {r["message"]: (r["path"], r["range"]["start"]) for r in finding["related"]}
    call = "the call of the compiled model whose inputs were used"
    lines = textwrap.dedent(TRAIN).lstrip("\n").splitlines()
    line = next(n for n, text in enumerate(lines) if "model(X, Y)" in text)
    assert notes[call] == ("train.py", {"line": line, "character": lines[line].index("model(X, Y)")}), notes
