"""The engine's result types: findings (diagnostics) and per-module outcomes.

Positions are 0-based lines and UTF-16 code-unit characters, exactly as LSP
wants them; the text reporter adds 1 for humans.  Everything here is plain
data so the CLI, the language server and the JSON/SARIF reporters share it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from .codes import registered, url_for
from .worker.wire.records import ExportSummary, LoweringResult, ModuleTree

Severity = Literal["error", "warning", "information", "hint"]
InputsKind = Literal["export-call", "example-inputs", "inferred", "recorded", "compile-call", "none"]
# "compiled": a compile check ran to its end (a module only compiled is never said to export)
Status = Literal["exported", "compiled", "failed", "skipped", "crashed", "timeout", "cancelled"]
Mode = Literal["non-strict", "strict", "both"]

SOURCE = "exportlens"


@dataclass(frozen=True)
class Position:
    line: int
    character: int

    def to_json(self) -> dict[str, int]:
        return {"line": self.line, "character": self.character}


@dataclass(frozen=True)
class Range:
    start: Position
    end: Position

    @staticmethod
    def of(line: int, start: int, end_line: int, end: int) -> Range:
        return Range(Position(line, start), Position(end_line, end))

    def to_json(self) -> dict[str, dict[str, int]]:
        return {"start": self.start.to_json(), "end": self.end.to_json()}


@dataclass(frozen=True)
class Related:
    path: str
    range: Range
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "range": self.range.to_json(), "message": self.message}


@dataclass
class Finding:
    """One diagnostic: where, how bad, which stable code, what to do."""

    path: str
    range: Range
    severity: Severity
    code: str
    message: str
    module: str | None = None
    mode: str | None = None
    related: list[Related] = field(default_factory=list)
    # Documentation link (LSP codeDescription.href): the code's section unless said (a torch page).
    url: str | None = None
    # Machine-readable data for quick-fixes (suggested fixes, symbols, ...).
    fix: dict[str, Any] | None = None
    # The severity is the user's `severity` setting's, not the registry's (check/suppression.py).
    configured: bool = False
    # The CLI's proof of its quick-fixes (fixes/said.py): {"fix": the proven one's title and
    # verdict, "key": its Fix.key (what --fix applies)}, or {"fix": None, "refused": [each tried,
    # with why]}; None: none was proven here.
    proof: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        # The registry is the one truth about codes: an unknown code or another severity is a bug.
        entry = registered(self.code)
        if self.severity != entry.severity and not self.configured:
            raise ValueError(f"{self.code!r} is registered as {entry.severity!r}, not {self.severity!r}")
        if self.url is None:
            self.url = url_for(self.code)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "path": self.path,
            "range": self.range.to_json(),
            "severity": self.severity,
            "code": self.code,
            "source": SOURCE,
            "message": self.message,
            "module": self.module,
            "mode": self.mode,
            "related": [r.to_json() for r in self.related],
        }
        if self.url:
            out["url"] = self.url
        if self.fix:
            out["fix"] = self.fix
        if self.proof is not None:
            out["proof"] = self.proof
        return out


@dataclass
class ModuleResult:
    """How one module's check went; `graph` holds the export summary on success."""

    name: str
    line: int
    inputs: InputsKind
    mode: str
    status: Status
    seconds: float = 0.0
    ops: int | None = None
    graph: ExportSummary | None = None  # the worker's, as the results store keeps it
    # Seconds per stage in the worker's child (fork, load, inputs, export, ...) and its peak RSS.
    timings: dict[str, float] = field(default_factory=dict)
    # Each lowering after the export (docs/targets.md): target, ok, seconds, facts, skipped.
    lowerings: list[LoweringResult] = field(default_factory=list)
    # The class the job exported and the workspace classes in it (covered.py); None: not known.
    tree: ModuleTree | None = None
    # A compile check's counts (graphs, breaks, recompiles, fullgraph); None: an export check.
    compiled: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "line": self.line,
            "inputs": self.inputs,
            "mode": self.mode,
            "status": self.status,
            "seconds": round(self.seconds, 3),
            "ops": self.ops,
        }
        if self.lowerings:
            out["targets"] = self.lowerings  # the JSON keeps the setting's word
        if self.tree is not None:
            out["class"] = self.tree["root"]["class"]
        if self.compiled is not None:
            out["compile"] = self.compiled
        return out


@dataclass
class FileResult:
    path: str
    modules: list[ModuleResult] = field(default_factory=list)
    diagnostics: list[Finding] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "modules": [m.to_json() for m in self.modules],
            "diagnostics": [d.to_json() for d in self.diagnostics],
        }


def by_position(findings: list[Finding]) -> list[Finding]:
    """The order findings are shown in: by line, column, code."""
    return sorted(findings, key=lambda d: (d.range.start.line, d.range.start.character, d.code))
