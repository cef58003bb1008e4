"""Reduce an ExportedProgram to JSON: ops, signature, dynamic dims, per-line ops."""

from __future__ import annotations

import re
import warnings
from typing import Any

GRAPH_CODE_LIMIT = 256 * 1024
_FRAME = re.compile(r'File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<name>\S+)')


def summarize(program: Any, path: str, caught: list[warnings.WarningMessage]) -> dict[str, Any]:
    graph = program.graph_module.graph
    nodes = [n for n in graph.nodes if n.op == "call_function"]
    code = program.graph_module.code
    return {
        "ops": len(nodes),
        "code": code[:GRAPH_CODE_LIMIT],
        "code_truncated": len(code) > GRAPH_CODE_LIMIT,
        "inputs": [
            {"kind": spec.kind.name.lower(), "name": getattr(spec.arg, "name", str(spec.arg)),
             "target": spec.target}
            for spec in program.graph_signature.input_specs
        ],
        "outputs": [
            {"kind": spec.kind.name.lower(), "name": getattr(spec.arg, "name", str(spec.arg)),
             "target": spec.target}
            for spec in program.graph_signature.output_specs
        ],
        "dynamic": dynamic_dims(program),
        "lines": ops_by_line(nodes, path),
        "warnings": [
            {"category": w.category.__name__, "message": str(w.message)[:2000],
             "path": w.filename, "line": w.lineno}
            for w in caught
        ],
    }


def dynamic_dims(program: Any) -> list[dict[str, Any]]:
    """Each symbolic input dim with its range: `x.shape[0] ∈ [2, 64]`."""
    user_inputs = {
        spec.arg.name for spec in program.graph_signature.input_specs if spec.kind.name == "USER_INPUT"
    }
    ranges = {str(sym): rng for sym, rng in program.range_constraints.items()}
    dims = []
    for node in program.graph_module.graph.nodes:
        if node.op != "placeholder" or node.name not in user_inputs:
            continue
        shape = getattr(node.meta.get("val"), "shape", ())
        for index, size in enumerate(shape):
            symbol = str(size)
            if symbol in ranges:
                rng = ranges[symbol]
                dims.append({
                    "input": node.name, "dim": index, "symbol": symbol,
                    "min": _bound(rng.lower), "max": _bound(rng.upper),
                })
    return dims


def _bound(value: Any) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if abs(number) < 2**62 else None


def ops_by_line(nodes: list[Any], path: str) -> dict[str, dict[str, list[str]]]:
    """{file: {line: [aten ops]}}: the innermost frame outside torch for each node."""
    result: dict[str, dict[str, list[str]]] = {}
    for node in nodes:
        trace = node.meta.get("stack_trace") or ""
        frames = [m for m in _FRAME.finditer(trace) if "/torch/" not in m["path"]]
        if not frames:
            continue
        frame = next((m for m in reversed(frames) if m["path"] == path), frames[-1])
        ops = result.setdefault(frame["path"], {}).setdefault(frame["line"], [])
        ops.append(str(node.target))
    return result
