"""Recompiles from the module's own Python state (issue 45 point 1): a forward that advances an int
attribute recompiles on every call with the same inputs, until `recompile_limit`.

The model is a Dueling DQN's `DQN_CNN` as found in public GitHub code (the code index's file with
`vis_hook` and `save_feature_maps`; its repository is not recorded there), as it is: `self.step += 1`
in `forward`, read by visualisation hooks; small input (4 stacked 60x60 frames, random init).
Torch's verdict, by hand (torch 2.13.0, backend="eager"): each call logs `Recompiling ... s.step == 0`,
then `== 1`, ...; with `torch._dynamo.config.allow_unspec_int_on_nn_module = True` (torch's hint)
nothing recompiles.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from tests.cli.test_cli import run_cli

DQN = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F


    class DQN_CNN(nn.Module):
        def __init__(self, frame_skip=4, n_actions=2):
            super().__init__()
            self.step = 0

            # ---------- CNN feature extractor ----------
            self.conv1 = nn.Conv2d(frame_skip, 32, kernel_size=6, stride=3)
            self.conv2 = nn.Conv2d(32, 64, kernel_size=4, stride=2)
            self.conv3 = nn.Conv2d(64, 64, kernel_size=3, stride=1)

            # ---------- Shared FC ----------
            self.fc = nn.Linear(64 * 6 * 6, 512)

            # ---------- Dueling heads ----------
            self.value = nn.Linear(512, 1)          # V(s)
            self.advantage = nn.Linear(512, n_actions)  # A(s,a)

        def forward(self, x):
            self.step += 1

            x = F.relu(self.conv1(x))
            x = F.relu(self.conv2(x))
            x = F.relu(self.conv3(x))

            x = x.view(x.size(0), -1)
            x = F.relu(self.fc(x))

            value = self.value(x)                    # [B, 1]
            advantage = self.advantage(x)            # [B, A]

            # ---- Dueling aggregation ----
            q = value + advantage - advantage.mean(dim=1, keepdim=True)

            return q


    policy = torch.compile(DQN_CNN())
    q = policy(torch.randn(1, 4, 60, 60))
"""


def test_a_step_counter_recompiles_every_call_on_its_line_and_torchs_knob_is_proven(tmp_path: Path) -> None:
    source = textwrap.dedent(DQN).lstrip("\n")
    (tmp_path / "dqn.py").write_text(source)
    out = run_cli("dqn.py", "--no-cache", "--format", "json", cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    found = [d for f in json.loads(out.stdout)["files"] for d in f["diagnostics"]]
    step = source.splitlines().index("        self.step += 1")
    assert [(d["code"], d["range"]["start"]["line"]) for d in found] == [("compile-recompile", step)], found
    message = found[0]["message"]
    assert "recompiles on every call with the same inputs: its guard `s" in message, message
    assert "step == 0` fails on the next call" in message, message
    assert "for each new batch size" not in message  # not mistaken for a size recompile
    assert "Proven to remove it" in message and "allow_unspec_int_on_nn_module = True" in message, message


def test_a_counter_kept_in_a_buffer_does_not_recompile(tmp_path: Path) -> None:
    source = textwrap.dedent(DQN).lstrip("\n")
    source = source.replace(
        "self.step = 0", 'self.register_buffer("step", torch.zeros((), dtype=torch.long))'
    )
    (tmp_path / "dqn.py").write_text(source)
    out = run_cli("dqn.py", "--no-cache", "--format", "json", cwd=tmp_path)
    found = [d for f in json.loads(out.stdout)["files"] for d in f["diagnostics"]]
    assert [d["code"] for d in found if d["code"] == "compile-recompile"] == [], found


def test_a_step_counter_in_a_global_recompiles_on_its_line_and_no_knob_is_advised(tmp_path: Path) -> None:
    """The same DQN with its counter a module global (`global STEP; STEP += 1`). Torch's verdict,
    by hand (torch 2.13.0): each call logs `Recompiling ... G['STEP'] == 0`, then `== 1`, ...;
    `allow_unspec_int_on_nn_module` is about module attributes and does not apply."""
    source = textwrap.dedent(DQN).lstrip("\n")
    source = source.replace("        self.step = 0\n", "").replace(
        "        self.step += 1\n", "        global STEP\n        STEP += 1\n"
    )
    source = source.replace("class DQN_CNN(nn.Module):", "STEP = 0\n\n\nclass DQN_CNN(nn.Module):")
    (tmp_path / "dqn_global.py").write_text(source)
    out = run_cli("dqn_global.py", "--no-cache", "--format", "json", cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    found = [d for f in json.loads(out.stdout)["files"] for d in f["diagnostics"]]
    step = source.splitlines().index("        STEP += 1")
    assert [(d["code"], d["range"]["start"]["line"]) for d in found] == [("compile-recompile", step)], found
    message = found[0]["message"]
    assert "its guard `G['STEP'] == 0` fails on the next call" in message, message
    assert "Proven" not in message and "allow_unspec_int_on_nn_module" not in message, message
