"""workspace/executeCommand for the targets a check does not run (issue 17, docs/targets.md).

- `exportlens.compileAoti(uri, module)` → {module, status, ok, seconds, facts, findings}: export
  the module and compile it with AOTInductor (targets.ON_DEMAND: tens of seconds, its own
  timeout); its findings join the module's diagnostics until the next check replaces them.
  Cancelling the request kills the job's child (engine.run); the worker lives on.
- `exportlens.saveOnnx(uri, module, path)` → {path, status, seconds, saved, reason}: the .onnx.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..check import check_document
from .app import ExportLensServer
from .commands import save_module
from .state import ModuleEntry

COMPILE_AOTI = "exportlens.compileAoti"
SAVE_ONNX = "exportlens.saveOnnx"


def register(server: ExportLensServer) -> None:
    @server.command(COMPILE_AOTI)
    async def compile_aoti(ls: ExportLensServer, uri: str, module: str) -> dict[str, Any]:
        if not ls.trusted:
            raise PermissionError("the workspace is untrusted: ExportLens runs no code")
        state, doc = ls.file(uri), ls.document(uri)
        target = next((t for t in doc.discovery.targets if t.name == module), None)
        if target is None or target.inputs_kind == "none" or target.part_of is not None:
            raise ValueError(f"no module {module!r} with example inputs in {uri}")
        options = ls.check_options()
        # One tracer: "both" would compile twice.
        mode = "non-strict" if options.mode == "both" else options.mode
        options = dataclasses.replace(options, mode=mode, targets=("export", "aoti"), on_demand=True)
        keys = doc.module_keys(ls.settings.results_key())
        result = await check_document(ls.engine(), doc, options, only={module})
        findings = [f for f in result.diagnostics if f.module == module]
        modules = [m for m in result.modules if m.name == module]
        if module in keys:
            state.entries[module] = ModuleEntry(keys[module], modules, findings, doc.version)
            ls.scheduler.publish(state, doc, keys)
        lowered = next((t for m in modules for t in m.targets if t.get("target") == "aoti"), {})
        return {
            "module": module,
            "status": modules[0].status if modules else "skipped",
            "ok": bool(lowered.get("ok")),
            "seconds": lowered.get("seconds"),
            "facts": lowered.get("facts", {}),
            "skipped": lowered.get("skipped", ""),
            "findings": [f.to_json() for f in findings],
        }

    @server.command(SAVE_ONNX)
    async def save_onnx(ls: ExportLensServer, uri: str, module: str, path: str) -> dict[str, Any]:
        if not path.endswith(".onnx"):
            path += ".onnx"
        return await save_module(ls, uri, module, path)
