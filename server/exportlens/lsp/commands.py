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
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lsprotocol import types

from ..check.jobs import make_job, tracers
from ..check.routes import routed_subject
from ..discovery import Subject, discovery_of
from ..document import Document
from ..engine import Engine
from . import notebooks
from .app import ExportLensServer
from .client_settings import to_json
from .command_results import (
    CancelResult,
    DaemonInfo,
    ExportModuleResult,
    GraphResult,
    RecheckResult,
    SaveResult,
    ServerStatus,
)
from .session import Snapshot

MODULE_SUMMARY_KEYS = ("ops", "inputs", "outputs", "dynamic", "warnings", "code_truncated")


def register(server: ExportLensServer) -> None:
    @server.command("exportlens.exportModule")
    async def export_module(ls: ExportLensServer, uri: str, position: types.Position) -> ExportModuleResult:
        uri, line, _ = notebooks.joined(ls, uri, position.line)  # from a cell: its notebook's
        subject = _subject(ls.session.snapshot(uri), line)
        entry = await ls.scheduler.export_now(uri, subject)
        if entry == "cancelled":
            return {"module": subject.name, "status": "cancelled", "findings": [], "summary": {}, "graph": ""}
        result = entry.results[0] if entry and entry.results else None
        graph: Mapping[str, Any] = (result.graph or {}) if result else {}  # the summary's JSON
        return {
            "module": subject.name,
            "status": result.status if result else "skipped",
            "findings": [f.to_json() for f in entry.findings] if entry else [],
            "summary": {k: graph[k] for k in MODULE_SUMMARY_KEYS if k in graph},
            "graph": graph.get("code", ""),
        }

    @server.command("exportlens.cancelExport")
    def cancel_export(ls: ExportLensServer, uri: str, position: types.Position) -> CancelResult:
        """The Cancel of exportModule's notification: an executeCommand's `$/cancelRequest`
        cancels only pygls's wrapper of the command, never the command's own task."""
        uri, line, _ = notebooks.joined(ls, uri, position.line)
        subject = _subject(ls.session.snapshot(uri), line)
        return {"cancelled": ls.scheduler.cancel_export(uri, subject.name)}

    @server.command("exportlens.graph")
    async def graph_text(ls: ExportLensServer, uri: str, module: str) -> GraphResult:
        snap = ls.session.snapshot(uri)
        entry = snap.results.get(module)
        if entry is None or not any(r.graph for r in entry.results):
            subject = snap.subject(module)
            if subject is None:
                raise ValueError(f"no module {module!r} in {uri}")
            exported = await ls.scheduler.export_now(uri, subject)
            entry = None if exported == "cancelled" else exported
        code = "\n\n".join(
            f"# {r.mode}\n{r.graph.get('code', '')}" for r in (entry.results if entry else []) if r.graph
        )
        return {"module": module, "code": code, "stale": entry is None or entry.key != snap.keys.get(module)}

    @server.command("exportlens.savePt2")
    async def save_pt2(ls: ExportLensServer, uri: str, module: str, path: str) -> SaveResult:
        return await save_module(ls, uri, module, path)

    @server.command("exportlens.recheck")
    def recheck(ls: ExportLensServer, uri: str) -> RecheckResult:
        ls.scheduler.schedule(uri, force=True)
        return {"scheduled": True}

    @server.command("exportlens.status")
    def status(ls: ExportLensServer) -> ServerStatus:
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
            "daemon": _daemon(engine),
            "jobsSent": ls.scheduler.engines.jobs_sent,
            "trusted": ls.trusted,
            "settings": to_json(ls.settings),
            "openFiles": len(ls.session.files),
        }


async def save_module(ls: ExportLensServer, uri: str, module: str, path: str) -> SaveResult:
    """Export `module` the way the check does (its route: its own file's inputs, or the call of the
    script that exports it) and write it to `path`: a .pt2, or an .onnx (worker child.save_program)."""
    snap = ls.session.snapshot(uri)
    if not snap.trusted:
        raise PermissionError("the workspace is untrusted: ExportLens runs no code")
    options = snap.options()
    doc, subject = routed(snap, module)
    job = make_job(doc, subject, tracers(options.mode)[0], options)
    job.purpose, job.save_to = "save", os.path.abspath(path)
    outcome = await ls.scheduler.run_job(job, snap.settings.python)
    save_error = str(outcome.raw.get("save_error", ""))
    return {
        "path": job.save_to,
        "status": outcome.status,
        "seconds": outcome.seconds,
        "saved": outcome.status == "exported" and not save_error and os.path.exists(job.save_to),
        "reason": save_error or outcome.reason or (outcome.failure["message"] if outcome.failure else ""),
    }


def routed(snap: Snapshot, module: str) -> tuple[Document, Subject]:
    """The document and subject whose export answers for `module` (check/routes.py): the module
    itself, or the call of the other file that exports it. Raises, saying what to do, for a module
    exported by nothing (no inputs) or checked only as a part of another file's module."""
    subject = snap.subject(module)
    if subject is None:
        raise ValueError(f"no module {module!r} in {snap.uri}")
    route = snap.view(subject).route
    if route.through == "parent":
        raise ValueError(
            f"`{module}` is checked as a part of {route.describe()}: export that module from "
            f"{Path(route.path).name}"
        )
    if route.through == "site":
        found = routed_subject(route)
        if found is None:
            raise ValueError(
                f"the export call of `{module}` in {Path(route.path).name} is gone: save that file"
            )
        return found
    if subject.inputs_kind == "none":
        raise ValueError(
            f"`{module}` has no example inputs in {snap.uri}: add an export call or example_inputs()"
        )
    return snap.document, subject


def _subject(snap: Snapshot, line: int) -> Subject:
    found = discovery_of(snap.document)
    subject = snap.subject_at(line)
    if subject is None:
        subject = next((t for t in found.subjects if getattr(t.node, "lineno", 0) - 1 == line), None)
    if subject is None and len(found.subjects) == 1:
        subject = found.subjects[0]
    if subject is None:
        raise ValueError(f"no module at line {line + 1} of {snap.uri}")
    if subject.part_of is not None:  # a part is exported the way it is used: through its parent
        subject = next((t for t in found.subjects if t.name == subject.part_of), subject)
    return subject


def _daemon(engine: Engine | None) -> DaemonInfo | None:
    """The worker daemon the engine uses (docs/daemon.md): its pid, and which client this is."""
    used = engine.daemon if engine else None
    return None if used is None else {"pid": used[0], "clients": used[1]}


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
