"""tests/slow.py: what it calls slow, and that the fast set refuses a test that starts a process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from tests.slow import is_slow_code, uses_torch

ROOT = Path(__file__).resolve().parents[1]


# Functions to classify, made at run time: a test that named them would be classified by them.
SAMPLES = """
import subprocess
import sys


def pure():
    return len("no process")


def spawns():
    subprocess.run([sys.executable, "-c", "pass"], check=True)


def calls_a_helper_that_spawns():
    pure()
    spawns()


def imports_the_worker_inputs():
    from exportlens.worker.job.inputs import build
"""


def samples() -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "tests.samples"}
    exec(compile(SAMPLES, "<samples>", "exec"), namespace)
    return namespace


def test_what_is_slow() -> None:
    found = samples()
    assert not is_slow_code(found["pure"])
    assert is_slow_code(found["spawns"])
    assert is_slow_code(found["calls_a_helper_that_spawns"])  # through a helper of tests/
    assert is_slow_code(found["imports_the_worker_inputs"])  # a module of ours that imports torch
    assert uses_torch("torch") and uses_torch("torch.export") and uses_torch("exportlens.worker.job.inputs")
    assert not uses_torch("exportlens.config.settings") and not uses_torch("json")


HIDDEN = """
import subprocess
import sys


def test_hides_its_subprocess():
    getattr(__import__("sub" + "process"), "run")([sys.executable, "-c", "pass"])


def test_hides_its_torch():
    __import__("tor" + "ch")


def test_says_its_subprocess():
    subprocess.run([sys.executable, "-c", "pass"])


def test_pure():
    assert 1 + 1 == 2
"""


def test_the_fast_set_fails_a_test_that_hides_a_process_or_torch(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(
        "from tests.slow import pytest_collection_modifyitems, pytest_configure, "
        "pytest_runtest_call, pytest_runtest_setup  # noqa: F401\n",
        encoding="utf-8",
    )
    (tmp_path / "test_hidden.py").write_text(textwrap.dedent(HIDDEN), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "server")]))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow", "test_hidden.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = run.stdout
    assert run.returncode == 1, out + run.stderr
    assert "2 failed, 1 passed, 1 deselected" in out, out
    assert "test_hides_its_subprocess is in the fast set but started subprocess.Popen" in out, out
    assert "test_hides_its_torch is in the fast set but started import 'torch'" in out, out
