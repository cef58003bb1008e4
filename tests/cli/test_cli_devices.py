"""`exportlens check` on scripts written for a GPU, on this machine without one (docs/devices.md).

Public model code: the TD3 agent of sfujim/TD3 (`TD3.py` @ 34770cc, MIT), as the real-code corpus
holds it (tests/data/realcode/corpus/td3/TD3.py, unchanged): a module-level
`device = torch.device("cuda" if torch.cuda.is_available() else "cpu")`, the agent moving its actor
and critics with `.to(device)`, `copy.deepcopy` targets and Adam optimisers; the script exports
them the way the repository's `main.py` feeds the actor (`select_action`'s
`torch.FloatTensor(state.reshape(1, -1)).to(device)`).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.cli.test_cli import run_cli
from tests.paths import DATA

AGENT = """
import numpy as np
import torch

import TD3

if __name__ == "__main__":
    policy = TD3.TD3(17, 6, 1.0)
    state = np.random.randn(17).astype("float32")
    torch.export.export(policy.actor.eval(), (torch.FloatTensor(state.reshape(1, -1)).to(TD3.device),))
"""
SCRIPT = """
import torch


class OnGpu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(x).relu()


if __name__ == "__main__":
    device = "cuda"
    model = OnGpu().to(device).eval()
    torch.export.export(model, (torch.randn(2, 8, device=device),))
"""


def test_the_issues_script_gives_no_cuda_error(tmp_path: Path) -> None:
    (tmp_path / "on_gpu.py").write_text(SCRIPT)
    done = run_cli("on_gpu.py", "--no-cache", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "CUDA" not in done.stdout and "inputs-error" not in done.stdout, done.stdout
    # `--device cpu` runs it on the CPU with real values: the same verdict.
    on_cpu = run_cli("on_gpu.py", "--no-cache", "--device", "cpu", "--format", "json", cwd=tmp_path)
    assert on_cpu.returncode == 0, on_cpu.stdout + on_cpu.stderr
    (file,) = json.loads(on_cpu.stdout)["files"]
    assert {m["status"] for m in file["modules"] if m["inputs"] == "export-call"} == {"exported"}


def test_public_td3_agent_on_cuda_exports(tmp_path: Path) -> None:
    shutil.copy(DATA / "realcode" / "corpus" / "td3" / "TD3.py", tmp_path / "TD3.py")
    (tmp_path / "export_agent.py").write_text(AGENT)
    done = run_cli("export_agent.py", "--no-cache", "--mode", "both", "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    (file,) = json.loads(done.stdout)["files"]
    calls = [m for m in file["modules"] if m["inputs"] == "export-call"]
    assert [(m["mode"], m["status"]) for m in calls] == [("non-strict", "exported"), ("strict", "exported")]
    assert file["diagnostics"] == [], file["diagnostics"]
