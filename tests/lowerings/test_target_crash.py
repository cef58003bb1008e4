"""A child that crashes while a target runs, after a clean export (issue 41: "a target that crashes
inside ExportLens is never shown as the model's error"): the export's verdict stands, the target is
said as not run with the signal, and no worker-crashed error. The crash is the module's own forward
killing the process once it sees real values, which only the target's comparison with eager gives
it (the export traces with fake tensors); the same file without the target is a clean export."""

from __future__ import annotations

from pathlib import Path

from exportlens.check import CheckOptions, check_file
from exportlens.engine import Engine
from tests.conftest import only

CRASHES_WHEN_RUN = """
    import os
    import signal

    import torch


    class CrashesWhenRun(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(8, 8)

        def forward(self, x):
            if type(x) is torch.Tensor:  # real values: only an eager run, never the export's trace
                os.kill(os.getpid(), signal.SIGSEGV)
            return torch.relu(self.fc(x))


    torch.export.export(CrashesWhenRun().eval(), (torch.randn(2, 8),))
"""


async def test_a_crash_while_lowering_keeps_the_clean_export_and_says_the_target_did_not_run(
    engine: Engine, write
) -> None:
    path = write("crashes_when_run.py", CRASHES_WHEN_RUN)
    options = CheckOptions(roots=[str(Path(path).parent)], lowerings=("export", "executorch"))
    result = await check_file(engine, path, None, options)
    assert not [d for d in result.diagnostics if d.severity == "error"], [
        d.message for d in result.diagnostics
    ]
    (module,) = result.modules
    assert module.status == "exported"
    info = only(result, "target-not-run")
    assert info.severity == "information"
    assert info.message.startswith("ExecuTorch: not checked: the check's process crashed (SIGSEGV)"), (
        info.message
    )
    assert "the export itself finished before" in info.message
