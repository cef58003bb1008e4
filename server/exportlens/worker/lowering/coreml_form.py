"""coreml: refusals of the program's form rather than of an op's translation (docs/targets.md).

coremltools 9.0 words these by its own internals ("Torch var  not found in context", "Only
torch.Tensor attr handled yet"); each is said here as what the user wrote: a `None` output, an input
that is no tensor, a higher-order op's subgraph.  None of these names the user's line itself: the
op's node when there is one (`torch.cond`), else the module.
"""

from __future__ import annotations

from typing import Any

from ..wire.records import LoweringFinding
from .nodes import call_nodes, op_name, target_finding

# `return logits, loss` without targets: coremltools looks the `None` up as a var named "".
NONE_OUTPUT = (
    "the module returns `None` among its outputs (`return logits, loss` without targets), and Core ML has "
    "no output for it: export a module whose `forward` returns only tensors (a wrapper returning `logits`)"
)
NOT_TENSOR = (
    "the input{s} {names} {are} no tensor{s}, and a Core ML model takes tensors only: bind {them} in a "
    "wrapper's `forward` (`return model(x, 3)`) or pass {them} as a tensor"
)
SUBGRAPH = (
    "coremltools does not take the subgraphs of `{op}` (a higher-order op: its branches or body are "
    "graph modules, not tensors): compute both branches and pick with `torch.where`, or lower to another "
    "target"
)


def form_refusal(text: str, reason: str, program: Any) -> LoweringFinding | None:
    """The finding for a refusal of the program's form, or None when the text is of another kind."""
    if "not found in context" in text and _returns_none(program):
        return target_finding("coreml-conversion-error", "error", f"{NONE_OUTPUT} ({reason}).")
    if "Placeholder val must be a tensor" in text:
        names = _not_tensors(program)
        several = len(names) > 1
        message = NOT_TENSOR.format(
            s="s" if several else "",
            names=", ".join(f"`{n}`" for n in names) or "(unnamed)",
            are="are" if several else "is",
            them="them" if several else "it",
        )
        return target_finding("coreml-conversion-error", "error", f"{message} ({reason}).")
    if "Only torch.Tensor attr handled" in text:
        node = _subgraph_user(program)
        op = op_name(node.target) if node is not None else "a higher-order op"
        message = f"{SUBGRAPH.format(op=op)} ({reason})."
        return target_finding("coreml-unsupported-op", "error", message, node, op if node is not None else "")
    return None


def _returns_none(program: Any) -> bool:
    output = next((n for n in program.graph_module.graph.nodes if n.op == "output"), None)
    values = output.args[0] if output is not None and output.args else ()
    return any(v is None for v in (values if isinstance(values, (list, tuple)) else (values,)))


def _not_tensors(program: Any) -> list[str]:
    """The user inputs whose example value is no tensor (an int, a float, a bool), by their names."""
    import torch

    user = {s.arg.name for s in program.graph_signature.input_specs if s.kind.name == "USER_INPUT"}
    nodes = program.graph_module.graph.nodes
    return [
        n.name
        for n in nodes
        if n.op == "placeholder" and n.name in user and not isinstance(n.meta.get("val"), torch.Tensor)
    ]


def _subgraph_user(program: Any) -> Any:
    """The first op node that takes a graph module (`torch.cond`'s branches, `map`'s body)."""
    module = program.graph_module
    for node in call_nodes(program):
        for arg in node.args:
            if getattr(arg, "op", None) == "get_attr" and hasattr(getattr(module, arg.target, None), "graph"):
                return node
    return None
