"""workspace/executeCommand: export now, graph text, save .pt2, re-check, server status.

Arguments are positional, as VS Code passes them:
- `exportlens.exportModule(uri, position)` → {module, status, findings, summary, graph}; status
  "cancelled" after `exportlens.cancelExport(uri, position)` → {cancelled}
- `exportlens.graph(uri, module)` → {module, code, stale}; exports first if nothing is cached
- `exportlens.savePt2(uri, module, path)` → {path, status, seconds, findings}
- `exportlens.recheck(uri)` → {scheduled}
- `exportlens.status()` → versions, trust, whether torch is imported here (must be False), RSS
"""

from __future__ import annotations

import os
import sys
from typing import Any

from lsprotocol import types

from ..check.jobs import make_job, tracers
from ..discovery import Target
from . import notebooks
from .app import ExportLensServer
from .client_settings import to_json
from .session import Snapshot

MODULE_SUMMARY_KEYS = ("ops", "inputs", "outputs", "dynamic", "warnings", "code_truncated")


def register(server: ExportLensServer) -> None:
    @server.command("exportlens.exportModule")
    async def export_module(ls: ExportLensServer, uri: str, position: types.Position) -> dict[str, Any]:
        uri, line, _ = notebooks.joined(ls, uri, position.line)  # from a cell: its notebook's
        target = _target(ls.session.snapshot(uri), line)
        entry = await ls.scheduler.export_now(uri, target)
        if entry == "cancelled":
            return {"module": target.name, "status": "cancelled", "findings": [], "summary": {}, "graph": ""}
        result = entry.results[0] if entry and entry.results else None
        graph = (result.graph or {}) if result else {}
        return {
            "module": target.name,
            "status": result.status if result else "skipped",
            "findings": [f.to_json() for f in entry.findings] if entry else [],
            "summary": {k: graph[k] for k in MODULE_SUMMARY_KEYS if k in graph},
            "graph": graph.get("code", ""),
        }

    @server.command("exportlens.cancelExport")
    def cancel_export(ls: ExportLensServer, uri: str, position: types.Position) -> dict[str, Any]:
        """The Cancel of exportModule's notification: an executeCommand's `$/cancelRequest`
        cancels only pygls's wrapper of the command, never the command's own task."""
        uri, line, _ = notebooks.joined(ls, uri, position.line)
        target = _target(ls.session.snapshot(uri), line)
        return {"cancelled": ls.scheduler.cancel_export(uri, target.name)}

    @server.command("exportlens.graph")
    async def graph_text(ls: ExportLensServer, uri: str, module: str) -> dict[str, Any]:
        snap = ls.session.snapshot(uri)
        entry = snap.results.get(module)
        if entry is None or not any(r.graph for r in entry.results):
            target = snap.target(module)
            if target is None:
                raise ValueError(f"no module {module!r} in {uri}")
            exported = await ls.scheduler.export_now(uri, target)
            entry = None if exported == "cancelled" else exported
        code = "\n\n".join(
            f"# {r.mode}\n{r.graph.get('code', '')}" for r in (entry.results if entry else []) if r.graph
        )
        return {"module": module, "code": code, "stale": entry is None or entry.key != snap.keys.get(module)}

    @server.command("exportlens.savePt2")
    async def save_pt2(ls: ExportLensServer, uri: str, module: str, path: str) -> dict[str, Any]:
        return await save_module(ls, uri, module, path)

    @server.command("exportlens.recheck")
    def recheck(ls: ExportLensServer, uri: str) -> dict[str, Any]:
        ls.scheduler.schedule(uri, force=True)
        return {"scheduled": True}

    @server.command("exportlens.status")
    def status(ls: ExportLensServer) -> dict[str, Any]:
        engine = ls.scheduler.engines.started
        info = engine.info if engine else {}

        return {
            "version": ls.version,
            "python": info.get("python"),
            "torch": info.get("torch"),
            "torchImported": "torch" in sys.modules,
            "pid": os.getpid(),
            "rssMb": rss_mb(),
            "workerPid": engine.worker_pid if engine else None,
            "jobsSent": engine.jobs_sent if engine else 0,
            "trusted": ls.trusted,
            "settings": to_json(ls.settings),
            "openFiles": len(ls.session.files),
        }


async def save_module(ls: ExportLensServer, uri: str, module: str, path: str) -> dict[str, Any]:
    """Export `module` and write it to `path`: a .pt2, or an .onnx (worker child.save_program)."""
    snap = ls.session.snapshot(uri)
    target = snap.target(module)
    if target is None or target.inputs_kind == "none":
        raise ValueError(f"no module {module!r} with example inputs in {uri}")
    if not snap.trusted:
        raise PermissionError("the workspace is untrusted: ExportLens runs no code")
    options = snap.options()
    job = make_job(snap.document, target, tracers(options.mode)[0], options)
    job.purpose, job.save_to = "save", os.path.abspath(path)
    outcome = await ls.scheduler.run_job(job)
    save_error = str(outcome.raw.get("save_error", ""))
    return {
        "path": job.save_to,
        "status": outcome.status,
        "seconds": outcome.seconds,
        "saved": outcome.status == "exported" and not save_error and os.path.exists(job.save_to),
        "reason": save_error or outcome.reason or (outcome.failure["message"] if outcome.failure else ""),
    }


def _target(snap: Snapshot, line: int) -> Target:
    found = snap.document.discovery
    target = snap.target_at(line)
    if target is None:
        target = next((t for t in found.targets if getattr(t.node, "lineno", 0) - 1 == line), None)
    if target is None and len(found.targets) == 1:
        target = found.targets[0]
    if target is None:
        raise ValueError(f"no module at line {line + 1} of {snap.uri}")
    if target.part_of is not None:  # a part is exported the way it is used: through its parent
        target = next((t for t in found.targets if t.name == target.part_of), target)
    return target


def rss_mb() -> float:
    """Resident set size of this process, from /proc (Linux) else getrusage's peak."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    try:
        import resource
    except ImportError:  # native Windows
        return 0.0
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
