"""core-aten: is the program, decomposed to Core ATen, made of Core ATen ops only? (docs/targets.md)

What ExecuTorch's `to_edge` needs: `run_decompositions(torch.export.default_decompositions())`,
then every op overload left must carry `torch.Tag.core` (or `view_copy`, which edge accepts).
Allowed as ExecuTorch's verifier allows them: Python builtins (`operator.getitem`, the symbolic
int ops), higher-order ops (`cond`, `map`, ...: their subgraphs are checked by the same rule) and the
shape bookkeeping ops below.  No extra package; the cost is one decomposition pass.
"""

from __future__ import annotations

from typing import Any

from ..core.budget import Budget
from ..wire.records import LoweringFinding, LoweringResult
from .nodes import node_frames, op_name, target_finding

# Bookkeeping an exported program may hold that ExecuTorch's verifier lets through.
ALLOWED = frozenset(
    {
        "aten._assert_async.msg",
        "aten._assert_scalar.default",
        "aten.sym_constrain_range.default",
        "aten.sym_constrain_range_for_size.default",
        "aten._assert_tensor_metadata.default",
    }
)
LIMIT = 50  # findings per module: one per op and line


def check(program: Any, attempt: Any, path: str, budget: Budget) -> LoweringResult:
    import torch

    with budget.bounded():
        decomposed = program.run_decompositions(torch.export.default_decompositions())
    findings: list[LoweringFinding] = []
    seen: set[tuple[str, int | None]] = set()
    ops = 0
    for node in _all_call_nodes(decomposed.graph_module):
        ops += 1
        target = node.target
        if not isinstance(target, torch._ops.OpOverload):
            continue  # builtins (getitem, symbolic int arithmetic) and higher-order ops
        name = op_name(target)
        tags = set(getattr(target, "tags", ()))
        if name in ALLOWED or torch.Tag.core in tags or torch.Tag.view_copy in tags:
            continue
        frames = node_frames(node)
        key = (name, frames[-1]["line"] if frames else None)
        if key in seen or len(findings) >= LIMIT:
            continue
        seen.add(key)
        findings.append(target_finding("core-aten-op", "error", _message(name, target), node, name))
    return {"target": "core-aten", "ok": not findings, "findings": findings, "facts": {"ops": ops}}


def _all_call_nodes(graph_module: Any) -> list[Any]:
    """Call nodes of the graph and of the subgraphs higher-order ops call (a cond's branches)."""
    import torch

    found = []
    for module in graph_module.modules():
        if isinstance(module, torch.fx.GraphModule):
            found += [n for n in module.graph.nodes if n.op == "call_function"]
    return found


def _message(name: str, target: Any) -> str:
    custom = not name.startswith(("aten.", "prims."))
    what = "a custom op" if custom else "an ATen op outside the Core ATen opset"
    return (
        f"`{name}` is {what}, left after the Core ATen decompositions: ExecuTorch's verifier refuses it "
        "(not in Core ATen opset). Rewrite the line with Core ATen ops, register a decomposition for it"
        + (" (a `CompositeImplicitAutograd` kernel of the op)" if custom else "")
        + ", or lower to a backend whose partitioner delegates it."
    )
