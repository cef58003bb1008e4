"""Tests of the lowering targets (docs/targets.md).

The `onnx` target's verdicts need onnx and onnxscript in the worker's interpreter: the dev venv has
them (pinned in pyproject.toml); the other torch versions' venvs (EXPORTLENS_TEST_PYTHON) do not, and
there `test_without_onnx_installed_the_target_says_so_as_information` is what runs.  Looked up on
disk: collecting a test must not start a process (tests/slow.py).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.conftest import WORKER_PYTHON


def worker_has(package: str) -> bool:
    if WORKER_PYTHON is None:
        return importlib.util.find_spec(package) is not None
    return any(Path(WORKER_PYTHON).parent.parent.glob(f"lib/python3*/site-packages/{package}/__init__.py"))


needs_onnx = pytest.mark.skipif(
    not (worker_has("onnx") and worker_has("onnxscript") and worker_has("onnxruntime")),
    reason="the worker's interpreter has no onnx / onnxscript / onnxruntime (EXPORTLENS_TEST_PYTHON)",
)
