"""Which delegated op makes the `.pte` differ from eager (executorch_run.py found that it does).

XNNPACK takes each op through one partitioner config (`target_name`: `upsample_bilinear2d.vec`,
`linear.default`, ...).  For each config that took a node of this program, the program is lowered
again without it, and the `.pte` run on the input set that differed: the config whose absence makes
the numbers match eager is the cause, proven by that run, and the finding goes on its nodes' line.
Bounded: at most LIMIT configs, each within the budget left.
"""

from __future__ import annotations

from typing import Any

from ..core.budget import Budget, OutOfBudget
from ..wire.records import LoweringFinding

LIMIT = 8  # configs tried; a program rarely delegates more distinct ops than this
# Why XNNPACK reads the op differently, and what to write instead (checked in executorch 1.5.1).
INSTEAD = {
    "upsample_bilinear2d.vec": (
        "XNNPACK derives the source pixels from the input and output sizes, PyTorch from the `scale_factor` "
        "given",
        "pass `size=` or `recompute_scale_factor=True` to `F.interpolate`, which both compute alike",
    ),
}


def delegated_configs(edge: Any) -> dict[str, list[Any]]:
    """XNNPACK config target_name -> the delegated nodes it took (the delegates' own graphs)."""
    from executorch.exir.lowered_backend_module import LoweredBackendModule

    from .executorch_plan import _graph_modules, _ops

    taken: dict[str, list[Any]] = {}
    for graph_module in _graph_modules(edge.graph_module):
        for node in graph_module.graph.nodes:
            lowered = getattr(graph_module, node.target, None) if node.op == "get_attr" else None
            if isinstance(lowered, LoweredBackendModule) and lowered.backend_id == "XnnpackBackend":
                for op in _ops(lowered.original_module.graph_module):
                    schema = op.target._schema
                    base = schema.name.split("::")[-1]
                    name = f"{base}.{op.target._overloadname}"
                    taken.setdefault(name, []).append(op)
    return taken


def blame(
    program: Any, edge: Any, inputs: list[Any], want: list[Any], budget: Budget
) -> tuple[str, Any] | str:
    """(config target_name, a node it took) whose absence from XNNPACK makes the `.pte` match eager;
    else why none is proven, in words for the finding."""
    import torch
    from executorch.backends.xnnpack.partition.config import ALL_PARTITIONER_CONFIGS
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    from .executorch_load import load
    from .numeric import _worst

    # The ops XNNPACK is known to read otherwise first: the likely cause is tried while time is left.
    taken = sorted(delegated_configs(edge).items(), key=lambda item: item[0] not in INSTEAD)[:LIMIT]
    tried: list[str] = []
    for name, nodes in taken:
        configs = [c for c in ALL_PARTITIONER_CONFIGS if getattr(c, "target_name", None) != name]
        if len(configs) == len(ALL_PARTITIONER_CONFIGS):
            continue  # a node no config of that name took (a fused activation): nothing to leave out
        try:
            with budget.bounded(share=0.5):
                lowered = to_edge_transform_and_lower(
                    program, partitioner=[XnnpackPartitioner(configs=configs)]
                )
                method, _ = load(lowered.to_executorch().buffer)
                if method is None:  # this variant does not load: no proof from it
                    tried.append(name)
                    continue
                got = [t for t in method.execute(inputs) if isinstance(t, torch.Tensor)]
        except OutOfBudget:
            return f"the time ran out after {_tried(tried)}"
        tried.append(name)
        if _worst(want, got) is None:
            return name, nodes[0]
    return (
        f"the `.pte` still differs with each of {_tried(tried)} left out of XNNPACK"
        if tried
        else ("no op XNNPACK took can be left out of it alone")
    )


def _tried(names: list[str]) -> str:
    return ", ".join(f"`{name}`" for name in names) if names else "no op tried"


def blamed_text(name: str) -> str:
    why, instead = INSTEAD.get(name, ("", ""))
    proof = (
        f"XNNPACK's `{name}` makes the difference{f' ({why})' if why else ''}: lowered with that op left to "
        "ExecuTorch's portable kernel, the `.pte` matches eager"
    )
    leave = "leave the op out of XNNPACK (`XnnpackPartitioner(configs=...)` without its config)"
    how = (
        f"{instead}, or {leave}"
        if instead
        else f"{leave}, or check that the difference is one the device can take"
    )
    return f"{proof}. Fix: {how}."


def blamed_finding(base: LoweringFinding, name: str, node: Any) -> LoweringFinding:
    from .nodes import node_frames, op_name

    finding: LoweringFinding = {**base, "message": f"{base['message']} {blamed_text(name)}"}
    finding["frames"], finding["node"], finding["op"] = (
        node_frames(node),
        str(node.name),
        op_name(node.target),
    )
    return finding
