"""Where an ONNX model's values first leave eager's: every intermediate exposed in one run.

torch.onnx names each ONNX value after the node of its decomposed program that made it, and each
decomposed node remembers the exported program's node it came from (`meta["from_node"]`).  The
last decomposed node of each program node is that node's value in ONNX; the exported program run
node by node gives the values to compare with.  The first program node (in graph order) whose
value differs is where the line is.
"""

from __future__ import annotations

from typing import Any

from .nodes import call_nodes

MAX_VALUES = 5000  # more intermediates than this: not worth the memory of one run


def first_divergence(onnx_program: Any, program: Any, args: Any, kwargs: Any) -> Any:
    import numpy as np
    import onnxruntime
    import torch
    import torch.utils._pytree as pytree
    from onnxscript import ir

    from .values import ATOL, RTOL

    leaves = pytree.tree_leaves((args, kwargs))
    reference = _values(program, leaves)
    last: dict[str, str] = {}  # program node -> the decomposed node that gives its value
    for node in call_nodes(onnx_program.exported_program):
        last[_origin(node)] = node.name
    model = onnx_program.model
    produced = {v.name: v for n in model.graph for v in n.outputs}
    pairs = [
        (node, produced[last[node.name]])
        for node in call_nodes(program)
        if node.name in last
        and last[node.name] in produced
        and isinstance(reference.get(node.name), torch.Tensor)
    ][:MAX_VALUES]
    outputs = list(model.graph.outputs)
    try:
        model.graph.outputs.extend(v for _, v in pairs if v not in outputs)
        session = onnxruntime.InferenceSession(
            ir.serde.serialize_model(model).SerializeToString(), providers=["CPUExecutionProvider"]
        )
    finally:
        model.graph.outputs.clear()
        model.graph.outputs.extend(outputs)
    tensors = [leaf for leaf in leaves if isinstance(leaf, torch.Tensor)]
    feeds = {i.name: t.detach().numpy() for i, t in zip(session.get_inputs(), tensors, strict=False)}
    names = [o.name for o in session.get_outputs()]
    got = dict(zip(names, session.run(None, feeds), strict=True))
    for node, value in pairs:
        if value.name not in got:
            continue
        want = reference[node.name].detach().double().numpy()
        have = np.asarray(got[value.name], dtype=np.float64)
        if want.shape != have.shape or not np.allclose(have, want, rtol=RTOL, atol=ATOL, equal_nan=True):
            return node
    return None


def _origin(node: Any) -> str:
    """The exported program's node a decomposed node came from (the oldest `from_node`)."""
    sources = node.meta.get("from_node") or []
    if not sources:
        return str(node.name)
    source = sources[-1]
    while getattr(source, "from_node", None):
        source = source.from_node[-1]
    return str(source.name)


def _values(program: Any, leaves: list[Any]) -> dict[str, Any]:
    """Each node's value when the exported program runs on the inputs (its unlifted module)."""
    import torch

    values: dict[str, Any] = {}

    class Recorder(torch.fx.Interpreter):
        def run_node(self, n: Any) -> Any:
            result = super().run_node(n)
            if isinstance(result, torch.Tensor):
                values[n.name] = result.detach()
            return result

    Recorder(program.module()).run(*leaves)
    return values
