"""workspace/executeCommand for the lowerings a check does not run (issue 17, docs/targets.md).

- `exportlens.compileAoti(uri, module)` → {module, status, ok, seconds, facts, findings}: export
  the module and compile it with AOTInductor (lowerings.ON_DEMAND: tens of seconds, its own
  timeout); its findings join the module's diagnostics until the next check replaces them.
- `exportlens.cancelAoti(uri, module)` → {cancelled}: stops that compile; the engine kills the job's
  child, the worker lives on, and the compile answers status "cancelled".  Its own command, as
  pygls's `$/cancelRequest` of an executeCommand does not reach the command's task.
- `exportlens.saveOnnx(uri, module, path)` → {path, status, seconds, saved, reason}: the .onnx.
"""

from __future__ import annotations

import asyncio
import dataclasses

from . import trust
from .app import ExportLensServer
from .command_results import CancelResult, CompileAotiResult, SaveResult
from .commands import routed, save_module

COMPILE_AOTI = "exportlens.compileAoti"
SAVE_ONNX = "exportlens.saveOnnx"
CANCEL_AOTI = "exportlens.cancelAoti"


def register(server: ExportLensServer) -> None:
    @server.command(CANCEL_AOTI)
    def cancel_aoti(ls: ExportLensServer, uri: str, module: str) -> CancelResult:
        task = ls.session.compiling.get((uri, module))
        if task is not None:
            task.cancel()
        return {"cancelled": task is not None}

    @server.command(COMPILE_AOTI)
    async def compile_aoti(ls: ExportLensServer, uri: str, module: str) -> CompileAotiResult:
        if not ls.trusted:
            raise trust.refused()
        snap = ls.session.snapshot(uri)
        routed(snap, module)  # raises for a module nothing exports, saying what to do
        options = snap.options()
        # One tracer: "both" would compile twice.
        mode = "non-strict" if options.mode == "both" else options.mode
        options = dataclasses.replace(options, mode=mode, lowerings=("export", "aoti"), on_demand=True)
        task = asyncio.current_task()
        if task is not None:
            ls.session.compiling[(uri, module)] = task
        try:
            result = await ls.scheduler.check_now(snap, options, {module})
        except asyncio.CancelledError:
            return {
                "module": module,
                "status": "cancelled",
                "ok": False,
                "seconds": None,
                "facts": {},
                "skipped": "",
                "findings": [],
            }
        finally:
            if ls.session.compiling.get((uri, module)) is task:
                del ls.session.compiling[(uri, module)]
        findings = [f for f in result.diagnostics if f.module == module]
        modules = [m for m in result.modules if m.name == module]
        ls.publisher.record(snap, module, modules, findings)
        lowered = next((t for m in modules for t in m.lowerings if t["target"] == "aoti"), None)
        return {
            "module": module,
            "status": modules[0].status if modules else "skipped",
            "ok": lowered is not None and lowered["ok"],
            "seconds": lowered.get("seconds") if lowered else None,
            "facts": lowered.get("facts", {}) if lowered else {},
            "skipped": lowered.get("skipped", "") if lowered else "",
            "findings": [f.to_json() for f in findings],
        }

    @server.command(SAVE_ONNX)
    async def save_onnx(ls: ExportLensServer, uri: str, module: str, path: str) -> SaveResult:
        if not path.endswith(".onnx"):
            path += ".onnx"
        return await save_module(ls, uri, module, path)
