"""The lowered ExecuTorch program, read back (executorch.py): what the partitioners delegated, what
is left to ExecuTorch's portable kernels, and which of the `.pte`'s operators no kernel in the
runtime can run.

Delegated: the call nodes inside each `LoweredBackendModule` (`executorch_call_delegate`'s first
argument) of the edge program; left out: every other op node of it, one warning per op and line
(nodes a pass made without a stack trace are counted, not shown).  Kernels: the `.pte`'s operator
table (`executorch_program.execution_plan[i].operators`) against the runtime's registry
(`Runtime.get().operator_registry.operator_names`), each missing one on the node that emits it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..wire.records import Frame, LoweringFinding
from .nodes import node_frames, op_name, target_finding

LIMIT = 50  # findings of one kind per module
SHOWN = 4  # ops named in one line's warning
# A spelling of the op that ExecuTorch's portable kernels have (checked in the 1.5.1 registry).
SPELLINGS = {
    "aten::sort": "`torch.topk(x, x.shape[dim], dim, largest=descending)` (the runtime has topk)",
    "aten::argsort": "`torch.topk(x, x.shape[dim], dim, largest=descending).indices`",
}


# What an op that passes insert is, in the user's words.
PLAIN = {
    "dim_order_ops._to_dim_order_copy.default": "a dtype or memory-format copy, `.to()`",
    "quantized_decomposed.quantize_per_tensor.default": "the int8 quantize step the quantizer put here",
    "quantized_decomposed.dequantize_per_tensor.default": "the int8 dequantize step the quantizer put here",
}


def delegation(
    edge: Any, reasons: dict[str, str], path: str, quantized: bool = False
) -> tuple[dict[str, Any], list[LoweringFinding]]:
    """Facts (delegated / total op nodes, the backends, the portable ops) and the findings: each op
    left out of the delegates, a warning on its line; none delegated at all, one on the module.
    `quantized`: the program went through the pt2e flow (quantize.py); the messages say so."""
    from executorch.exir.lowered_backend_module import LoweredBackendModule

    graph_modules = _graph_modules(edge.graph_module)
    backends: Counter[str] = Counter()
    subgraphs = 0
    portable: list[Any] = []
    placement: dict[str, str] = {}
    for graph_module in graph_modules:
        for node in graph_module.graph.nodes:
            lowered = getattr(graph_module, node.target, None) if node.op == "get_attr" else None
            if isinstance(lowered, LoweredBackendModule):
                subgraphs += 1
                inside = _ops(lowered.original_module.graph_module)
                backends[str(lowered.backend_id)] += len(inside)
                _place(placement, inside, str(lowered.backend_id))
            elif node.op == "call_function" and _is_op(node):
                portable.append(node)
    _place(placement, portable, PORTABLE)
    delegated = sum(backends.values())
    facts: dict[str, Any] = {
        "delegated": f"{delegated}/{delegated + len(portable)} nodes",
        "delegated_subgraphs": subgraphs,
        "backends": dict(backends),
        "portable_ops": sorted({op_name(n.target) for n in portable}),
        "placement": placement,
    }
    findings = _not_delegated(portable, reasons, path, " in the quantized program" if quantized else "")
    if portable and not subgraphs:
        which = "of the quantized program " if quantized else ""
        message = (
            f"no subgraph {which}was delegated to XNNPACK: every op runs on ExecuTorch's portable kernels "
            "(slow on a device). Use ops and dtypes XNNPACK takes (float32 / float16, or a quantized "
            "program), or lower with another backend's partitioner."
        )
        findings.insert(0, target_finding("executorch-no-delegate", "warning", message))
    return facts, findings


PORTABLE = "portable"  # a node's placement when no delegate took it
MISSING = "missing kernel"  # ... and the runtime has no kernel for it


def _place(placement: dict[str, str], nodes: list[Any], where: str) -> None:
    """Each node's exported-program node (the graph panel's ids) -> where it runs. A node the edge
    dialect split runs where its worst part does: portable over delegated."""
    for node in nodes:
        for name in exported_names(node):
            if placement.get(name) != PORTABLE:
                placement[name] = where


def exported_names(node: Any) -> set[str]:
    """The exported program's nodes this edge node came from: the roots of torch's `from_node`
    provenance (each pass that rewrote the node adds a link); the node itself when there is none."""
    roots: set[str] = set()
    stack = list(getattr(node, "meta", {}).get("from_node") or [])
    while stack:
        source = stack.pop()
        parents = list(getattr(source, "from_node", None) or [])
        if parents:
            stack += parents
        elif isinstance(getattr(source, "name", None), str):
            roots.add(source.name)
    return roots or {str(node.name)}


def _graph_modules(root: Any) -> list[Any]:
    """The edge program's graph and its control flow's subgraphs, not the delegates' own."""
    import torch

    return [m for m in root.modules() if isinstance(m, torch.fx.GraphModule)]


def _ops(graph_module: Any) -> list[Any]:
    return [n for n in graph_module.graph.nodes if n.op == "call_function" and _is_op(n)]


def _is_op(node: Any) -> bool:
    """A tensor op (an OpOverload, an edge op), not `getitem`, symbolic int arithmetic or a delegate call."""
    return hasattr(node.target, "_schema") and hasattr(node.target, "_overloadname")


def user_line(frames: list[Frame], path: str) -> tuple[str, int | None] | None:
    """The line a finding lands on, near enough to group by: the innermost frame in the checked file,
    else outside site-packages (the server picks the user's frame itself), else the innermost."""
    mine = [f for f in frames if f["path"] == path] or [f for f in frames if "site-packages" not in f["path"]]
    chosen = mine or frames
    return (chosen[-1]["path"], chosen[-1]["line"]) if chosen else None


def _not_delegated(
    portable: list[Any], reasons: dict[str, str], path: str, where: str = ""
) -> list[LoweringFinding]:
    """One warning per line: the ops of its nodes left out, each with the partitioner's reason."""
    lines: dict[tuple[str, int | None], list[Any]] = {}
    for node in portable:
        line = user_line(node_frames(node), path)
        if line is not None:  # a node a pass made, with no line: counted in the facts only
            lines.setdefault(line, []).append(node)
    findings: list[LoweringFinding] = []
    for nodes in list(lines.values())[:LIMIT]:
        said: dict[str, str] = {}
        for node in nodes:
            reason = reasons.get(str(node.name))
            why = f"XNNPACK's partitioner refused it: {reason}" if reason else "XNNPACK has no support for it"
            op = op_name(node.target)
            said.setdefault(op, f"{PLAIN[op]}; {why}" if op in PLAIN else why)
        if len(said) == 1:
            ((op, why),) = said.items()
            what = f"`{op}` is not delegated{where} ({why}): it runs on ExecuTorch's portable CPU kernel"
        else:
            ops = [f"`{op}` ({why})" for op, why in said.items()]
            if len(ops) > SHOWN:
                ops = [*ops[: SHOWN - 1], f"{len(ops) - SHOWN + 1} more"]
            listed = f"{', '.join(ops[:-1])} and {ops[-1]}"
            what = f"{listed} are not delegated{where}: they run on portable CPU kernels"
        message = (
            f"{what}, outside XNNPACK. Rewrite the line with ops and dtypes XNNPACK takes, or accept the "
            "portable kernel's speed."
        )
        findings.append(
            target_finding("executorch-not-delegated", "warning", message, nodes[0], next(iter(said)))
        )
    return findings


def missing_kernels(manager: Any, placement: dict[str, str]) -> list[LoweringFinding]:
    """One error per operator of the `.pte` that the runtime's registry lacks, on the node emitting it
    (its exported nodes' placement becomes MISSING)."""
    from executorch.runtime import Runtime

    registered = set(Runtime.get().operator_registry.operator_names)
    findings: list[LoweringFinding] = []
    for plan in manager.executorch_program.execution_plan:
        wanted = [f"{o.name}.{o.overload}" if o.overload else o.name for o in plan.operators]
        missing = [name for name in wanted if name not in registered]
        if not missing:
            continue
        nodes = _nodes_by_kernel(manager.exported_program(plan.name).graph_module)
        for name in missing[:LIMIT]:
            for node in nodes.get(name) or [None]:
                findings.append(_missing(name, node))
                for exported in exported_names(node) if node is not None else ():
                    placement[exported] = MISSING
    return findings


def _nodes_by_kernel(graph_module: Any) -> dict[str, list[Any]]:
    """`aten::sort.values` -> the out-variant nodes calling it, one per line (the emitted program)."""
    found: dict[str, list[Any]] = {}
    lines: set[tuple[str, int | None]] = set()
    for module in _graph_modules(graph_module):
        for node in _ops(module):
            schema = node.target._schema
            name = f"{schema.name}.{schema.overload_name}" if schema.overload_name else schema.name
            frames = node_frames(node)
            key = (name, frames[-1]["line"] if frames else None)
            if key not in lines:
                lines.add(key)
                found.setdefault(name, []).append(node)
    return found


def _missing(kernel: str, node: Any) -> LoweringFinding:
    spelling = SPELLINGS.get(kernel.partition(".")[0])
    instead = f"rewrite the line as {spelling}, " if spelling else "rewrite the line with an op it has, "
    message = (
        f"no kernel for `{kernel}` in the runtime: the `.pte` builds but its method fails to load "
        f'("Missing operator: {kernel}"). To run it, {instead}register a custom kernel for it in the '
        "runtime build, or lower it with a backend whose partitioner delegates it."
    )
    op = op_name(node.target) if node is not None else kernel.replace("::", ".")
    return target_finding("executorch-missing-kernel", "error", message, node, op)
