"""`exportlens.graphView(uri, module)`: the structured graph the "ExportLens: Graph" panel draws.

→ {module, uri, stale, results: [{mode, status, seconds, view, placement}], findings}: one result per
tracer, `view` the worker's records.GraphView (None when that export made no graph), `placement` each
node's place on the device (the executorch target's: backend, portable, missing kernel), `findings` the
module's diagnostics (what the panel shows and links to when the export failed). A check builds
the view only for the module the panel last asked for (the session's `graph_views`: the panel shows one), so
the first request exports that module again with its view; the checks after it, which the panel
redraws from, carry it.
"""

from __future__ import annotations

from ..check.routes import route_of
from ..worker.wire.records import LoweringResult
from .app import ExportLensServer
from .command_results import GraphViewResult
from .state import ModuleEntry

GRAPH_VIEW = "exportlens.graphView"


def register(server: ExportLensServer) -> None:
    @server.command(GRAPH_VIEW)
    async def graph_view(ls: ExportLensServer, uri: str, module: str) -> GraphViewResult:
        doc = ls.session.document(uri)
        route = route_of(doc, ls.session.file(uri).placement, module)
        # the job that builds the view: the module's own, or the call of the file it is routed through
        ls.session.graph_views = frozenset({(doc.path, module), (route.path, module)})
        snap = ls.session.snapshot(uri)
        entry = snap.results.get(module)
        if entry is None or _lacks_view(entry):
            subject = snap.subject(module)
            if subject is None:
                raise ValueError(f"no module {module!r} in {uri}")
            if subject.part_of is not None:  # a part is exported through its parent
                raise ValueError(
                    f"{module!r} is part of {subject.part_of!r}: show the graph of {subject.part_of!r}"
                )
            exported = await ls.scheduler.export_now(uri, subject)
            entry = None if exported == "cancelled" else exported
        return {
            "module": module,
            "uri": uri,
            "stale": entry is None or entry.key != snap.keys.get(module),
            "results": [
                {
                    "mode": r.mode,
                    "status": r.status,
                    "seconds": round(r.seconds, 3),
                    "view": r.graph.get("view") if r.graph else None,
                    "placement": _placement(r.lowerings),
                }
                for r in (entry.results if entry else [])
            ],
            "findings": [f.to_json() for f in entry.findings] if entry else [],
        }


def _placement(lowerings: list[LoweringResult]) -> dict[str, str]:
    """Where each graph node runs on the device (the executorch target's, docs/targets.md): the panel
    colours delegated, portable and kernel-less nodes. Empty when that target did not run."""
    for lowering in lowerings:
        placement = lowering.get("facts", {}).get("placement")
        if isinstance(placement, dict):
            return {str(k): str(v) for k, v in placement.items()}
    return {}


def _lacks_view(entry: ModuleEntry) -> bool:
    """Exported, but without the view (checked before the panel asked, or restored from the store)."""
    return any(r.graph is not None and "view" not in r.graph for r in entry.results)
