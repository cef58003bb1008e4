"""The worker's warm-up leaves no torch global state behind, on the worker's own torch.

Every job is forked from the warmed worker: torch 2.10's failed non-strict export left a global
buffer-registration hook there, and every strict export that reassigns a buffer was then refused.
Checked in the worker's interpreter (EXPORTLENS_TEST_PYTHON or this one), torch's state read
before and after the real warm-up; and end to end, a strict export that reassigns a buffer.
"""

from __future__ import annotations

import json
import subprocess
import sys

from exportlens.engine import Engine
from tests.conftest import WORKER_PYTHON, check
from tests.paths import ROOT

SERVER = str(ROOT / "server")

STATE = """
import json, sys
sys.path.insert(0, {server!r})
import torch
from exportlens.worker.host import torch_state
from exportlens.worker.host.warmup import warm_up

before = torch_state.snapshot()
warm_up()
after = torch_state.snapshot()
# The snapshot sees such a hook at all: one registered by hand shows up.
handle = torch.nn.modules.module.register_module_buffer_registration_hook(lambda m, n, b: b)
planted = torch_state.differences(after, torch_state.snapshot())
handle.remove()
print(json.dumps({{"left": torch_state.differences(before, after), "planted": planted}}))
"""


def _in_worker_python(code: str) -> dict[str, list[str]]:
    python = WORKER_PYTHON or sys.executable
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, list[str]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_warm_up_leaves_no_torch_global_state() -> None:
    found = _in_worker_python(STATE.format(server=SERVER))
    assert [d.split(":")[0] for d in found["planted"]] == ["nn.module._global_buffer_registration_hooks"]
    assert found["left"] == []


BUFFER = """
import torch


class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros((), dtype=torch.long))

    def forward(self, x):
        self.calls += 1
        return x + 1


if __name__ == "__main__":
    torch.export.export(Counter(), (torch.randn(4),), strict=True)
"""


async def test_strict_export_reassigning_a_buffer_is_not_refused(engine: Engine, write) -> None:  # type: ignore[no-untyped-def]
    result = await check(engine, write("counter.py", BUFFER), mode="strict")
    assert [m.status for m in result.modules] == ["exported"], [
        (d.code, d.message) for d in result.diagnostics
    ]
