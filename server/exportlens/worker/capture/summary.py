"""Reduce an ExportedProgram to its summary (records.ExportSummary): ops, signature, dims, ops per line.

`facts` holds what the caller-side silent-corruption checks confirm against:
ops left in training mode, in-place writes to user inputs, ops whose result
nothing uses (a tensor stored on `self` and dropped), and which ops exist.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

from ..wire.records import DynamicDim, ExportSummary, GraphFacts, GraphOp
from .graph_json import graph_view

GRAPH_CODE_LIMIT = 256 * 1024
_FRAME = re.compile(r'File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<name>\S+)')


def summarize(
    program: Any, path: str, caught: list[warnings.WarningMessage], view: bool = False
) -> ExportSummary:
    """`view`: with the graph panel's records.GraphView too (most of the summary's bytes and time
    on a big model: only when the panel asks for it, a job's `graph` flag)."""
    graph = program.graph_module.graph
    nodes = [n for n in graph.nodes if n.op == "call_function"]
    code = program.graph_module.code
    summary: ExportSummary = {
        "ops": len(nodes),
        "code": code[:GRAPH_CODE_LIMIT],
        "code_truncated": len(code) > GRAPH_CODE_LIMIT,
        "inputs": [
            {
                "kind": spec.kind.name.lower(),
                "name": getattr(spec.arg, "name", str(spec.arg)),
                "target": spec.target,
            }
            for spec in program.graph_signature.input_specs
        ],
        "outputs": [
            {
                "kind": spec.kind.name.lower(),
                "name": getattr(spec.arg, "name", str(spec.arg)),
                "target": spec.target,
            }
            for spec in program.graph_signature.output_specs
        ],
        "dynamic": dynamic_dims(program),
        "lines": ops_by_line(nodes, path),
        "warnings": [
            {
                "category": w.category.__name__,
                "message": str(w.message)[:2000],
                "path": w.filename,
                "line": w.lineno,
            }
            for w in caught
        ],
        "facts": graph_facts(program, nodes, path),
    }
    if view:
        summary["view"] = graph_view(program, path)
    return summary


def dynamic_dims(program: Any) -> list[DynamicDim]:
    """Each symbolic input dim with its range: `x.shape[0] ∈ [2, 64]`."""
    user_inputs = {
        spec.arg.name for spec in program.graph_signature.input_specs if spec.kind.name == "USER_INPUT"
    }
    ranges = {str(sym): rng for sym, rng in program.range_constraints.items()}
    dims: list[DynamicDim] = []
    for node in program.graph_module.graph.nodes:
        if node.op != "placeholder" or node.name not in user_inputs:
            continue
        shape = getattr(node.meta.get("val"), "shape", ())
        for index, size in enumerate(shape):
            symbol = str(size)
            if symbol in ranges:
                rng = ranges[symbol]
                dims.append(
                    {
                        "input": node.name,
                        "dim": index,
                        "symbol": symbol,
                        "min": _bound(rng.lower),
                        "max": _bound(rng.upper),
                    }
                )
    return dims


def _bound(value: Any) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError, AttributeError):  # AttributeError: int_oo (no max)
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


FACTS_LIMIT = 200  # entries per list: enough to confirm, small on the wire
_TRAIN_ARGS = ("train", "training")
_NO_VALUE_OPS = ("_assert", "sym_constrain_range", "_print")


def graph_facts(program: Any, nodes: list[Any], path: str) -> GraphFacts:
    """Best effort: an odd node must not turn a successful export into a failure."""
    try:
        return _graph_facts(program, nodes, path)
    except Exception as exc:  # noqa: BLE001
        return {"error": f"{type(exc).__name__}: {exc}"[:500]}


def _graph_facts(program: Any, nodes: list[Any], path: str) -> GraphFacts:
    user_inputs = {
        spec.arg.name: spec.arg.name
        for spec in program.graph_signature.input_specs
        if spec.kind.name == "USER_INPUT" and hasattr(spec.arg, "name")
    }
    training: list[GraphOp] = []
    mutations: list[GraphOp] = []
    unused: list[GraphOp] = []
    for node in nodes:
        schema = getattr(node.target, "_schema", None)
        where = _node_site(node, path)
        if schema is not None and _train_flag(node, schema):
            training.append({"op": str(node.target), **_module_of(node), **where})
        written = _written_input(node, schema, user_inputs) if schema is not None else None
        if written is not None:
            mutations.append({"op": str(node.target), "input": written, **where})
        elif not node.users and schema is not None and schema.returns and not _is_bookkeeping(node):
            unused.append({"op": str(node.target), **where})
    for spec in program.graph_signature.output_specs:
        if spec.kind.name == "USER_INPUT_MUTATION" and spec.target:
            mutations.append({"op": "output", "input": str(spec.target), "path": None, "line": None})
    return {
        "training_ops": training[:FACTS_LIMIT],
        "input_mutations": mutations[:FACTS_LIMIT],
        "unused_ops": unused[:FACTS_LIMIT],
        "op_names": sorted({str(n.target) for n in nodes})[:FACTS_LIMIT],
    }


def _train_flag(node: Any, schema: Any) -> bool:
    """Dropout / batch-norm style ops whose `train(ing)` argument is True."""
    for index, argument in enumerate(schema.arguments):
        if argument.name in _TRAIN_ARGS:
            value = node.args[index] if index < len(node.args) else node.kwargs.get(argument.name)
            return value is True
    return False


def _written_input(node: Any, schema: Any, user_inputs: dict[str, str]) -> str | None:
    """The user input an in-place op writes to, following views back to the placeholder."""
    for index, argument in enumerate(schema.arguments):
        alias = argument.alias_info
        if alias is None or not alias.is_write or index >= len(node.args):
            continue
        source = node.args[index]
        for _ in range(32):  # a chain of views: select -> slice -> ...
            if getattr(source, "op", None) != "call_function":
                break
            view = getattr(source.target, "_schema", None)
            if view is None or not view.arguments or view.arguments[0].alias_info is None:
                break
            source = source.args[0]
        if getattr(source, "op", None) == "placeholder" and source.name in user_inputs:
            return user_inputs[source.name]
    return None


def _is_bookkeeping(node: Any) -> bool:
    name = str(node.target).rpartition("aten.")[2]
    if any(name.startswith(prefix) for prefix in _NO_VALUE_OPS):
        return True
    schema = node.target._schema
    return any(a.alias_info is not None and a.alias_info.is_write for a in schema.arguments)


def _module_of(node: Any) -> GraphOp:
    stack = node.meta.get("nn_module_stack") or {}
    if not stack:
        return {"module": "", "module_class": ""}
    fqn, cls = list(stack.values())[-1]
    fqn = re.sub(r"^L\['self'\]\.?|^_export_root\.?", "", str(fqn))
    return {"module": fqn, "module_class": str(getattr(cls, "__name__", cls)).rpartition(".")[2]}


def _node_site(node: Any, path: str) -> GraphOp:
    """The node's innermost frame in `path` (else outside torch), as ops_by_line picks it."""
    trace = node.meta.get("stack_trace") or ""
    frames = [m for m in _FRAME.finditer(trace) if "/torch/" not in m["path"]]
    if not frames:
        return {"path": None, "line": None}
    frame = next((m for m in reversed(frames) if m["path"] == path), frames[-1])
    return {"path": frame["path"], "line": int(frame["line"])}
