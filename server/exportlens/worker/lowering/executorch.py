"""executorch: does the program lower to ExecuTorch, and its `.pte` load and run the same? (docs/targets.md)

In the child, with the user's `executorch`: `to_edge_transform_and_lower(program, partitioner=
[XnnpackPartitioner()])`, then `to_executorch()`, then the `.pte` buffer loaded by ExecuTorch's own
runtime (`executorch.runtime.Runtime`) and run on the example inputs and, for each dynamic dim, at a
second size (numeric.py's input sets), against eager.  What it finds is on the line of the graph
node that made it (executorch_plan.py: delegation and kernels; executorch_run.py: the runtime).
Without `executorch` in this interpreter the target is skipped with the install hint.  With
`exportlens.quantize` `xnnpack` the program is quantized first (quantize.py) and lowered the same way;
its `.pte` is judged against the float model with int8's own tolerance.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Iterator
from typing import Any

from ..capture.graph_breaks import causes
from ..core.budget import Budget
from ..wire.records import LoweringFinding, LoweringResult
from ..wire.targets import BY_NAME
from .nodes import call_nodes, op_name, target_finding
from .values import cannot_run

NEEDS = BY_NAME["executorch"].needs
INSTALL = "`executorch` is not installed in the checked interpreter: `pip install executorch`"
NO_VALUES = (
    "not lowered to ExecuTorch: the model was built {why}, so there are no weights to put in a `.pte`."
    " Set `exportlens.device` to `cpu` (`--device cpu`) or raise `metaAboveMb`."
)
_PACKET = re.compile(r"\b([a-z_]\w*)::(\w+)\b")
QUANTIZES = True  # lowering/__init__.py passes the job's `quantize`
_RUNNING = re.compile(r"While executing %(\w+)")  # torch.fx's note: the node an interpreter ran
_OP = re.compile(r"\b(aten|dim_order_ops|quantized_decomposed|[a-z_]\w*)(?:::|\.)(\w+)\.(\w+)\b")


def check(program: Any, attempt: Any, path: str, budget: Budget, quantize: str = "none") -> LoweringResult:
    if (unable := cannot_run("executorch", NEEDS, INSTALL, NO_VALUES, program, attempt)) is not None:
        return unable
    from .executorch_plan import delegation, missing_kernels, user_line

    float_program, judge = program, None
    if quantize == "xnnpack":
        from .quantize import Judge, Refused, quantized

        with budget.bounded(share=0.4):  # torchao's imports and the flow: seconds (docs/targets.md)
            try:
                program = quantized(program, attempt)
            except Refused as exc:
                return _refused("executorch-quantize-error", f"torchao's {exc.step}", exc, exc.program)
    reasons: dict[str, str] = {}
    with budget.bounded(share=0.6):  # the rest for to_executorch and the runtime
        # Imported in the bound: seconds in a cold child (torchao, the XNNPACK partitioner).
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
        from executorch.exir import to_edge_transform_and_lower

        try:
            with _why_not_delegated(reasons):
                edge = to_edge_transform_and_lower(program, partitioner=[XnnpackPartitioner()])
        except Exception as exc:  # noqa: BLE001 - ExecuTorch's refusal, placed on the user's line
            return _refused("executorch-lowering-error", "`to_edge_transform_and_lower`", exc, program)
    facts, findings = delegation(
        edge.exported_program(), reasons, path, quantized=program is not float_program
    )
    if program is not float_program:
        facts = {"quantized": quantize, **facts}
        judge = Judge(facts)
    with budget.bounded(share=0.5):
        try:
            manager = edge.to_executorch()
            buffer = manager.buffer
        except Exception as exc:  # noqa: BLE001 - memory planning, emitter: on the user's line
            return _refused("executorch-emit-error", "`to_executorch`", exc, edge.exported_program())
    facts["pte_bytes"] = len(buffer)
    from .executorch_load import load
    from .executorch_run import load_refusal, run

    with budget.bounded(share=0.9):
        method, said = load(buffer)
        if method is None:  # the kernels the registry lacks say why; else the runtime's words
            missing = missing_kernels(manager, facts["placement"]) or [load_refusal(said)]
            lines = {user_line(m.get("frames") or [], path) for m in missing} - {None}
            findings = [f for f in findings if user_line(f.get("frames") or [], path) not in lines] + missing
        else:
            facts["numeric_checks"] = []
            findings += run(
                method,
                float_program,
                attempt,
                facts["numeric_checks"],
                edge.exported_program(),
                budget,
                judge,
            )
            if judge is not None and (worse := judge.finding()):
                findings.append(worse)
    ok = not any(f["severity"] == "error" for f in findings)
    return {"target": "executorch", "ok": ok, "findings": findings, "facts": facts}


@contextlib.contextmanager
def _why_not_delegated(reasons: dict[str, str]) -> Iterator[None]:
    """The partitioners' `WhyNoPartition` debug records (node name -> reason), while lowering."""

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            node, reason = getattr(record.msg, "node", None), getattr(record.msg, "reason", None)
            if node is not None and isinstance(reason, str):
                reasons.setdefault(str(node.name), reason)

    logger = logging.getLogger("executorch")
    handler, level, propagate = Collect(logging.DEBUG), logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False  # the debug records stay out of the child's output
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate


def _refused(code: str, step: str, exc: BaseException, program: Any) -> LoweringResult:
    return {"target": "executorch", "ok": False, "findings": [refusal(code, step, exc, program)]}


def refusal(code: str, step: str, exc: BaseException, program: Any) -> LoweringFinding:
    """ExecuTorch's own text, on the node of the first op it names (else on the module)."""
    chain = causes(exc, depth=20)
    quantizing = code == "executorch-quantize-error"
    text = "\n".join(str(e) for e in chain)
    node, op = _named(program, text)
    where = f" at `{op}`" if op else ""
    reason = _first_lines(chain[-1]) or type(chain[-1]).__name__
    hint = (
        "XNNPACK's quantizer takes float32: build the model and its inputs in float32 (`.float()`), or check "
        "the float program (`exportlens.quantize` `none`)."
        if quantizing and "to have dtype torch.float32" in text
        else "Rewrite the line it names, or check the float program (`exportlens.quantize` `none`)."
        if quantizing
        else "A custom op needs an out variant (`ns::op.out`, registered with torch.library) and its kernel "
        "in the runtime build, or a backend whose partitioner delegates it."
        if "Missing out variants" in text
        else "Rewrite the line with ops the edge dialect and the runtime take (Core ATen, static or bounded "
        "shapes), or lower it with another backend."
    )
    message = f"{step} refused the program{where} ({type(chain[-1]).__name__}: {reason.rstrip('.')}). {hint}"
    return target_finding(code, "error", message, node, op)


def _named(program: Any, text: str) -> tuple[Any, str]:
    try:
        nodes = call_nodes(program)
    except Exception:  # noqa: BLE001 - a program half through lowering: no node, the module
        return None, ""
    if (running := _RUNNING.search(text)) and (
        node := next((n for n in nodes if n.name == running[1]), None)
    ):
        return _traced(node), op_name(node.target)
    by_op: dict[str, Any] = {}
    for node in nodes:
        by_op.setdefault(op_name(node.target), node)
    for match in _OP.finditer(text):
        op = f"{match[1]}.{match[2]}.{match[3]}"
        if op in by_op:
            return by_op[op], op
    for match in _PACKET.finditer(text):  # `{'mylib::scale'}`: the op without its overload
        op = next((name for name in by_op if name.startswith(f"{match[1]}.{match[2]}.")), "")
        if op:
            return by_op[op], op
    return None, ""


def _traced(node: Any) -> Any:
    """The node, else the first node using its value that has a line (a pass's node has none: the
    quantize step of a weight is placed on the layer that uses the weight)."""
    seen, queue = {node}, [node]
    while queue:
        here = queue.pop(0)
        if here.meta.get("stack_trace"):
            return here
        fresh = [u for u in here.users if u not in seen]
        seen.update(fresh)
        queue += fresh
    return node


def _first_lines(exc: BaseException) -> str:
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).split("While executing %")[0].strip()
    return " ".join(text.splitlines()[:3])[:500]
