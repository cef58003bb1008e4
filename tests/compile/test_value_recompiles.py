"""Recompiles from a Python number the script changes between calls of its compiled model (issue
45 point 1: a rate, a scale, a temperature). Real torch in the real worker, through the CLI, on the
corpus' public model code (tests/data/realcode/corpus/README.md).

Torch's verdicts, by hand (torch 2.13.0, `TORCH_LOGS=recompiles`, the scripts as they are):
- recvae: every epoch's new dropout rate logs `Recompiling ... dropout_prob == 0.4`, `== 0.32...`
  on `x = F.dropout(x, dropout_prob, ...)`: 4 graphs for 4 calls, and so on to `recompile_limit`.
- srcnn: scales 2 to 9 make 3 graphs (the scale turns dynamic after one recompile, the frame the
  interpolate's break resumes in after one more): nothing recompiles for good.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests.cli.test_cli import run_cli
from tests.conftest import WORKER_PYTHON
from tests.realcode_expected import CORPUS


def _check(folder: Path, script: str) -> list[dict[str, Any]]:
    out = run_cli(script, "--no-cache", "--format", "json", cwd=folder, python=WORKER_PYTHON)
    assert out.returncode == 0, out.stdout + out.stderr
    return [d for f in json.loads(out.stdout)["files"] for d in f["diagnostics"]]


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines()) if line.strip() == text)


def test_an_annealed_dropout_rate_recompiles_on_the_dropout_line() -> None:
    source = (CORPUS / "recvae" / "compile_recvae.py").read_text(encoding="utf-8")
    found = _check(CORPUS / "recvae", "compile_recvae.py")
    pin = _line(source, "x = F.dropout(x, dropout_prob, training=self.training)")
    assert [(d["code"], d["range"]["start"]["line"]) for d in found] == [("compile-recompile", pin)], found
    message = found[0]["message"]
    call = _line(source, "mu, logvar = encoder(ratings, dropout_prob)") + 1
    said = f"each new value of `dropout_prob`, which the script changes between calls (line {call};"
    assert said in message, message
    assert "torch's guard failed: dropout_prob == 0.52" in message, message
    assert "this line needs it as a constant" in message and "recompile_limit" in message, message
    assert "Proven" not in message and "mark_dynamic" not in message  # nothing proven: nothing advised


def test_a_rate_the_script_never_changes_is_not_varied(tmp_path: Path) -> None:
    source = (CORPUS / "recvae" / "compile_recvae.py").read_text(encoding="utf-8")
    (tmp_path / "fixed.py").write_text(source.replace("    dropout_prob *= 0.8\n", ""), encoding="utf-8")
    assert [d["code"] for d in _check(tmp_path, "fixed.py")] == []


def test_a_scale_torch_makes_dynamic_is_not_a_recompile(tmp_path: Path) -> None:
    shutil.copy(CORPUS / "srcnn" / "compile_srcnn.py", tmp_path / "srcnn.py")
    assert [d["code"] for d in _check(tmp_path, "srcnn.py")] == []
