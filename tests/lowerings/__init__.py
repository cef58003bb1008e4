"""Tests of the lowering targets (docs/targets.md).

The `onnx` target's verdicts need onnx and onnxscript in the worker's interpreter: the dev venv has
them (pinned in pyproject.toml); the other torch versions' venvs (EXPORTLENS_TEST_PYTHON) do not.
`test_without_onnx_installed_the_target_says_so_as_information` runs on those, and on the dev venv
through a view of its site-packages without onnx.  Looked up on disk: collecting a test must not
start a process (tests/slow.py).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tests.conftest import WORKER_PYTHON


def worker_has(package: str) -> bool:
    if WORKER_PYTHON is None:
        return importlib.util.find_spec(package) is not None
    return any(Path(WORKER_PYTHON).parent.parent.glob(f"lib/python3*/site-packages/{package}/__init__.py"))


# Only another torch's venv (EXPORTLENS_TEST_PYTHON, built without onnx) skips: in the dev venv,
# where the dev extra pins them, a missing onnx fails the tests loudly.
needs_onnx = pytest.mark.skipif(
    WORKER_PYTHON is not None
    and not (worker_has("onnx") and worker_has("onnxscript") and worker_has("onnxruntime")),
    reason="the worker's interpreter has no onnx / onnxscript / onnxruntime (EXPORTLENS_TEST_PYTHON)",
)


async def not_installed_message(tmp_path: Path, package: str, path: str, target: str) -> str:
    """`path` checked for `target` by this interpreter without `package`: the one finding must be the
    target's information line (never an error); its message, for the caller to compare."""
    from exportlens.check import CheckOptions, check_file
    from exportlens.engine import Engine, EngineOptions

    engine = Engine(EngineOptions(python=python_without(tmp_path, package), timeout=60.0))
    try:
        options = CheckOptions(roots=[str(Path(path).parent)], lowerings=("export", target))
        result = await check_file(engine, path, None, options)
    finally:
        await engine.close()
    (info,) = result.diagnostics
    assert info.code == "target-not-run" and info.severity == "information", info
    return info.message


def python_without(folder: Path, *packages: str) -> str:
    """This interpreter with its site-packages minus the packages whose names start with `packages`:
    a user's torch without them. `-S` keeps site (and its .pth files) out; a folder of links is the path."""
    import torch

    site = Path(torch.__file__).resolve().parent.parent
    links = folder / "site"
    links.mkdir()
    for entry in site.iterdir():
        if not entry.name.lower().startswith((*packages, "~")):
            (links / entry.name).symlink_to(entry)
    wrapper = folder / f"python-without-{packages[0]}"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH="{links}" exec "{sys.executable}" -S "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


# A custom op that returns an int (a SymInt to inductor): torch.export takes it, AOTInductor's C++
# wrapper has no code for that return type (torch 2.13: "Unsupported return type"). Checked
# through the worker, the server and the CLI; each names its own op namespace.
_INT_OP = """
import torch

@torch.library.custom_op("NS::count", mutates_args=())
def count(x: torch.Tensor) -> int:
    return int(x.numel())

@count.register_fake
def _(x):
    return torch.library.get_ctx().new_dynamic_size()

class Counted(torch.nn.Module):
    def forward(self, x):
        n = count(x)
        return x * n

if __name__ == "__main__":
    torch.export.export(Counted(), (torch.randn(4, 4),))
"""


def int_op(namespace: str) -> str:
    return _INT_OP.replace("NS::", f"{namespace}::")


# A small MLP with a dynamic batch, exported by its own script run (seeded: the AOTI test builds
# the same weights to compare the package with).
MLP = """
    import torch
    from torch.export import Dim

    class MLP(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(8, 32)
            self.fc2 = torch.nn.Linear(32, 4)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x)))

    if __name__ == "__main__":  # the test's own run of the file skips it
        torch.manual_seed(0)
        batch = Dim("batch", max=64)
        torch.export.export(MLP().eval(), (torch.randn(3, 8),), dynamic_shapes=({0: batch},))
"""
