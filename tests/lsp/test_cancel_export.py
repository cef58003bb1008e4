"""The Cancel of "Export this module" stops the export (lsp/commands.py `exportlens.cancelExport`).

An executeCommand's `$/cancelRequest` cancels only pygls's wrapper of the command, never the
command's own task: the export ran on to its end. Through the real server and worker: a module
whose forward takes a minute while a flag file exists is exported and cancelled a few seconds
in: the command answers "cancelled" at once, the job's child is gone, and the worker is the
same process and exports next.
"""

from __future__ import annotations

import asyncio
import time

from tests.procs import leftovers, until_a_child_idles

from .conftest import Session

SLOW = """
    import time
    from pathlib import Path

    import torch

    FLAG = Path(__file__).with_name("slow.flag")


    class Slow(torch.nn.Module):
        def forward(self, x):
            if FLAG.exists():  # the test's export, not the file's normal check
                time.sleep(60)
            return x + 1

        def example_inputs(self):
            return (torch.ones(2),)
"""


async def test_cancel_export_stops_the_export_and_the_worker_goes_on(server: Session) -> None:
    assert await server.open("slow_export.py", SLOW) == []
    uri = (server.root / "slow_export.py").resolve().as_uri()
    at = {"line": 9, "character": 8}  # in class Slow
    worker = (await server.command("exportlens.status"))["workerPid"]
    flag = server.root / "slow.flag"
    flag.write_text("")
    bars = set(server.client.progress_reports)
    try:
        exporting = asyncio.ensure_future(server.command("exportlens.exportModule", uri, at))
        await until_a_child_idles(worker)  # inside forward's sleep
        assert not exporting.done()
        # the command's caller shows the progress (the extension's, with its Cancel): not the server
        assert set(server.client.progress_reports) == bars
        asked = time.monotonic()
        assert await server.command("exportlens.cancelExport", uri, at) == {"cancelled": True}
        result = await asyncio.wait_for(exporting, 15)
        assert result["status"] == "cancelled" and result["graph"] == "", result
        assert time.monotonic() - asked < 15
        assert await leftovers(worker) == []  # the job's child was killed, not left to sleep on
    finally:
        flag.unlink()
    assert await server.command("exportlens.cancelExport", uri, at) == {"cancelled": False}
    assert (await server.command("exportlens.status"))["workerPid"] == worker
    after = await server.command("exportlens.exportModule", uri, at)
    assert after["status"] == "exported", after
