"""A document's check, each module where the plan places it: the one check of the CLI and the
language server.

Each module goes by its route (routes.py, from plan.py's placement): those of its own file are
checked by the document's own check (run.py); each other file (an export site, a parent file)
runs its check for the modules routed through it (elsewhere.py), all at once. A part its parent
file's export never calls is covered by no export: the document's own check takes it after them (a
guess, or "no example inputs"), as it would in a file without a parent. The editor checks a batch
of modules at a time (`only`); the CLI every module of a file (`check_planned`, of `plan_file`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

from ..discovery import discovery_of
from ..document import Document
from ..engine import Engine
from ..findings import FileResult, by_position
from .elsewhere import Checked, check_elsewhere
from .jobs import CheckOptions
from .plan import Placement, PlannedFile
from .routes import Route, route_of
from .run import EarlyReport, check_document


async def check_placed(
    engine: Engine,
    doc: Document,
    options: CheckOptions,
    placement: Placement,
    only: set[str] | None = None,
    early: EarlyReport | None = None,
) -> FileResult:
    """The modules of `doc` (those in `only`), each checked where `placement` says: what its own
    check finds first (on any file), then what each other file's check finds on `doc`'s, in the
    order of the files. `early` hears of each module's first failure before its others are found."""
    subjects = [t for t in discovery_of(doc).subjects if only is None or t.name in only]
    routes = {t.name: route_of(doc, placement, t.name) for t in subjects}
    local = {name for name, route in routes.items() if not route.elsewhere}
    runs: list[Awaitable[Checked]] = []
    if local or discovery_of(doc).error is not None:
        runs.append(_own(engine, doc, options, local, early))
    for file in placement.files():
        exported = [t for t in subjects if routes[t.name] == Route(t.name, file, "site")]
        parts = [t for t in subjects if routes[t.name] == Route(t.name, file, "parent")]
        if exported or parts:
            runs.append(check_elsewhere(engine, doc, options, file, exported, parts, early))
    result = FileResult(doc.path)
    for modules, findings in await asyncio.gather(*runs):
        result.modules += modules
        result.diagnostics += findings
    answered = {m.name for m in result.modules}
    uncalled = {t.name for t in subjects if t.name in placement.parents and t.name not in answered}
    if uncalled:
        modules, findings = await _own(engine, doc, options, uncalled, early)
        result.modules += modules
        result.diagnostics += findings
    return result


async def _own(
    engine: Engine, doc: Document, options: CheckOptions, names: set[str], early: EarlyReport | None
) -> Checked:
    result = await check_document(engine, doc, options, only=names, early=early)
    return result.modules, result.diagnostics


async def check_planned(engine: Engine, planned: PlannedFile, early: EarlyReport | None = None) -> FileResult:
    """Every module of the file, as a file's result: modules by line, findings by position; `early`
    hears each module's first failure as soon as it is known."""
    result = await check_placed(engine, planned.doc, planned.options, planned.placement, early=early)
    result.modules.sort(key=lambda m: m.line)
    result.diagnostics = by_position(result.diagnostics)
    return result
