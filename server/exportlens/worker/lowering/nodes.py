"""A graph node -> the frames of its stack trace, as the failure records carry them (records.Frame).

`node.meta["stack_trace"]` is the traceback text torch keeps for each node: outermost first,
`File "...", line N, in name` per frame, no columns; the server picks the innermost user frame.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from ..wire.records import Frame, LoweringFinding

_FRAME = re.compile(r'File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<name>\S+)')


def node_frames(node: Any) -> list[Frame]:
    trace = str(getattr(node, "meta", {}).get("stack_trace") or "")
    return [{"path": m["path"], "line": int(m["line"]), "name": m["name"]} for m in _FRAME.finditer(trace)]


def op_name(target: Any) -> str:
    """`aten.index_put.default`, `aten.add.Tensor`, `mylib.scale.default`: the name torch prints for a
    node's target (an OpOverload, or ExecuTorch's EdgeOpOverload around one).  From the schema's
    name: an OpOverload's `_name` already ends with its overload when that is not `default`."""
    schema = getattr(target, "_schema", None)
    overload = getattr(target, "_overloadname", None)
    name = getattr(schema, "name", None)
    if isinstance(name, str) and isinstance(overload, str):
        return f"{name.replace('::', '.')}.{overload}"
    return str(target)


def call_nodes(program: Any) -> list[Any]:
    return [n for n in program.graph_module.graph.nodes if n.op == "call_function"]


def target_finding(
    code: str,
    severity: Literal["error", "warning", "information"],
    message: str,
    node: Any = None,
    op: str = "",
) -> LoweringFinding:
    """One refusal, on the node's frames when there is a node (else the server puts it on the module)."""
    finding: LoweringFinding = {"code": code, "severity": severity, "message": message, "frames": []}
    if node is not None:
        finding["frames"] = node_frames(node)
        finding["node"] = str(node.name)
    if op:
        finding["op"] = op
    return finding
