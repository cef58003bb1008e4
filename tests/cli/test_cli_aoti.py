"""`exportlens check --target aoti`: the AOTInductor compile from the command line (docs/targets.md).

Public model code: the TD3 actor of sfujim/TD3 (`TD3.py` @ 34770cc, MIT), as the real-code corpus
holds it (tests/data/realcode/corpus/td3/TD3.py, unchanged), exported the way the repository's
`main.py` feeds it (`select_action`'s `torch.FloatTensor(state.reshape(1, -1))`): it compiles and
its package runs as eager does.  A custom op returning an int is refused on its line (torch 2.13).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from tests.cli.test_cli import run_cli
from tests.lowerings import int_op
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
INT_OP = int_op("el_cli")


def test_the_public_td3_actor_compiles_with_aoti(tmp_path: Path) -> None:
    shutil.copy(DATA / "realcode" / "corpus" / "td3" / "TD3.py", tmp_path / "TD3.py")
    (tmp_path / "export_agent.py").write_text(AGENT)
    flags = ("--no-cache", "--target", "aoti", "--device", "cpu", "--format", "json")
    done = run_cli("export_agent.py", *flags, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    (file,) = json.loads(done.stdout)["files"]
    assert file["diagnostics"] == [], file["diagnostics"]
    (actor,) = [m for m in file["modules"] if m["inputs"] == "export-call"]
    (aoti,) = actor["targets"]
    assert aoti["target"] == "aoti" and aoti["ok"] is True, aoti
    assert aoti["facts"]["package_bytes"] > 4 * (17 * 256 + 256 * 256 + 256 * 6)  # the weights are in it
    assert aoti["facts"]["checked"] == ["the example inputs"]
    os.remove(aoti["facts"]["package_path"])  # under the temp folder, named after this test's tmp_path


def test_a_refusal_is_on_the_line_in_text_output(tmp_path: Path) -> None:
    (tmp_path / "counted.py").write_text(INT_OP)
    done = run_cli("counted.py", "--no-cache", "--target", "aoti", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    line = INT_OP.splitlines().index("        n = count(x)") + 1  # 1-based; the file starts with "\n"
    (said,) = [s for s in done.stdout.splitlines() if "error[aoti-compile-error]" in s]
    assert said.startswith(f"counted.py:{line}:") and "AOTInductor: cannot compile" in said, said
