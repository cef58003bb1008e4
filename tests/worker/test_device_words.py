"""The device redirect only where there is something to redirect (worker/capture/device_words.py): a
file that names no device and imports no workspace file is built without it. Real worker, real
torch: the file itself tells whether its build ran under the redirect."""

from __future__ import annotations

import ast
from typing import Any

import pytest

from exportlens.engine import Engine
from exportlens.worker.capture.device_words import has_accelerator, needs_redirect
from tests.conftest import check

pytestmark = pytest.mark.slow  # the worker, and torch in this process (has_accelerator)

PROBE = """
import torch

# True while the redirect's torch function mode is on the stack.
REDIRECTED = any(type(m).__name__ == "_Redirect" for m in torch.overrides._get_current_function_mode_stack())
if REDIRECTED:
    raise RuntimeError("built under the redirect")


class Net(torch.nn.Module):
    def forward(self, x):
        return x.relu()


torch.export.export(Net(), (torch.ones(3),))
"""


def redirected(result: Any) -> bool:
    return any("built under the redirect" in d.message for d in result.diagnostics)


async def test_a_file_without_devices_is_built_as_it_is(engine: Engine, write: Any) -> None:
    result = await check(engine, write("plain.py", PROBE))
    # A machine with a GPU keeps the redirect: a library could choose the GPU by itself.
    assert redirected(result) == has_accelerator()
    if not has_accelerator():
        assert [m.status for m in result.modules] == ["exported"]


async def test_a_file_naming_a_device_is_redirected(engine: Engine, write: Any) -> None:
    result = await check(engine, write("named.py", PROBE.replace("x.relu()", "x.relu()  # any device")))
    assert redirected(result)


async def test_a_file_importing_a_workspace_file_is_redirected(engine: Engine, write: Any) -> None:
    write("helpers.py", "SCALE = 2\n")
    result = await check(engine, write("imports.py", "import helpers\n" + PROBE))
    assert redirected(result), "helpers.py might place tensors itself"


def test_the_words() -> None:
    for text in (
        "x.cuda()",
        "x.to(dev)",
        "torch.device('mps')",
        "torch.cuda.is_available()",
        "with autocast",
    ):
        assert needs_redirect(text, ast.parse(""), []), text
    assert not needs_redirect(
        "import torch\nimport os\nx = torch.ones(2)\n", ast.parse("import torch\nimport os"), []
    )
    assert needs_redirect("from . import blocks\n", ast.parse("from . import blocks"), [])
