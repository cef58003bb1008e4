"""What each server command answers, declared once: the client's `protocol.ts` result types are
checked field by field against these (tests/lsp/test_commands_declared_once.py)."""

from __future__ import annotations

from typing import Any, TypedDict

from ..worker.wire.records import GraphView


class ExportModuleResult(TypedDict):
    module: str
    status: str  # "exported", "compiled", "failed", "skipped", "timeout", "crashed", "cancelled"
    findings: list[dict[str, Any]]  # Finding.to_json()
    summary: dict[str, Any]  # the summary's ops, inputs, outputs, dynamic, warnings, code_truncated
    graph: str  # the ATen graph's Python text; empty when the export failed


class CancelResult(TypedDict):
    cancelled: bool


class GraphResult(TypedDict):
    module: str
    code: str  # one `# <mode>` section per tracer
    stale: bool


class GraphViewRun(TypedDict):
    mode: str
    status: str
    seconds: float
    view: GraphView | None  # the worker's, as its summary carries it
    placement: dict[str, str]  # node id -> `XnnpackBackend`, `portable`, `missing kernel` (executorch)


class GraphViewResult(TypedDict):
    module: str
    uri: str
    stale: bool
    results: list[GraphViewRun]
    findings: list[dict[str, Any]]


class CompileAotiResult(TypedDict):
    module: str
    status: str
    ok: bool
    seconds: float | None
    facts: dict[str, Any]  # worker/lowering/aoti.py's
    skipped: str
    findings: list[dict[str, Any]]


class SaveResult(TypedDict):
    path: str
    status: str
    seconds: float
    saved: bool
    reason: str


class RecheckResult(TypedDict):
    scheduled: bool


class DaemonInfo(TypedDict):
    pid: int
    clients: int


class ServerStatus(TypedDict):
    version: str
    python: str | None
    torch: str | None
    torchImported: bool  # camelCase: the wire's names
    pid: int
    rssMb: float
    workerPid: int | None
    daemon: DaemonInfo | None
    jobsSent: int
    trusted: bool
    settings: dict[str, Any]
    openFiles: int
