"""Findings and module results to JSON and back, exactly (the store keeps what a check found)."""

from __future__ import annotations

from typing import Any, cast

from ..findings import Finding, InputsKind, ModuleResult, Position, Range, Related, Severity, Status


def range_from(raw: dict[str, Any]) -> Range:
    start, end = raw["start"], raw["end"]
    return Range(Position(start["line"], start["character"]), Position(end["line"], end["character"]))


def finding_from(raw: dict[str, Any]) -> Finding:
    """The inverse of `Finding.to_json` (a code no longer registered raises ValueError)."""
    return Finding(
        path=raw["path"],
        range=range_from(raw["range"]),
        severity=cast(Severity, raw["severity"]),
        code=raw["code"],
        message=raw["message"],
        module=raw.get("module"),
        mode=raw.get("mode"),
        related=[Related(r["path"], range_from(r["range"]), r["message"]) for r in raw.get("related", [])],
        url=raw.get("url"),
        fix=raw.get("fix"),
        proof=raw.get("proof"),
    )


def result_to(result: ModuleResult) -> dict[str, Any]:
    """Everything of a module result, the export summary (the hover's graph) included."""
    return {
        **result.to_json(),
        "seconds": result.seconds,
        "graph": result.graph,
        "timings": result.timings,
        "tree": result.tree,
    }


def result_from(raw: dict[str, Any]) -> ModuleResult:
    return ModuleResult(
        name=raw["name"],
        line=raw["line"],
        inputs=cast(InputsKind, raw["inputs"]),
        mode=raw["mode"],
        status=cast(Status, raw["status"]),
        seconds=raw.get("seconds", 0.0),
        ops=raw.get("ops"),
        graph=raw.get("graph"),
        timings=raw.get("timings", {}),
        lowerings=raw.get("targets", []),
        tree=raw.get("tree"),
        compiled=raw.get("compile"),
    )
