"""onnx: does `torch.onnx.export(program, dynamo=True)` take the program, and run the same? (docs/targets.md)

The already-exported program is handed to torch.onnx (no second trace; its `dynamic_shapes` come
with it).  A refusal becomes a finding on the line of the node torch names (by its name in
"Error when translating node %x", else by the op); a model that `onnx.checker` refuses is one too.
Then, with onnxruntime, numeric.py compares it with eager.  Without onnx / onnxscript in this
interpreter the target is skipped with the install hint.
"""

from __future__ import annotations

import importlib.util
import re
from typing import Any

from ..capture.graph_breaks import causes
from ..core.budget import Budget
from ..wire.records import LoweringFinding, LoweringResult
from ..wire.targets import BY_NAME
from .nodes import call_nodes, op_name, target_finding
from .values import no_values

NEEDS = BY_NAME["onnx"].needs
INSTALL = (
    f"{' and '.join(f'`{n}`' for n in NEEDS)} are not installed in the checked interpreter: "
    f"`pip install {' '.join(NEEDS)}`"
)
_NODE = re.compile(r"Error when translating node %(\w+)")
_OVERLOAD = re.compile(r"OpOverload\(op='([\w.:]+)', overload='(\w+)'\)")
_DYNAMIC = re.compile(r"dynamic|symbolic|SymInt|SymFloat|ConstraintViolation|unbacked|guard", re.I)


def check(program: Any, attempt: Any, path: str, budget: Budget) -> LoweringResult:
    if any(importlib.util.find_spec(name) is None for name in NEEDS):
        return {"target": "onnx", "ok": False, "skipped": INSTALL}
    import torch

    with budget.bounded(share=0.6):  # the rest for the numeric check
        try:
            # Without values (fake devices, meta weights) the optimizer's constant folding cannot run.
            onnx_program = torch.onnx.export(
                program, dynamo=True, verbose=False, report=False, optimize=not no_values(program, attempt)
            )
        except Exception as exc:  # noqa: BLE001 - torch's refusal, placed on the user's line
            return {"target": "onnx", "ok": False, "findings": [refusal(exc, program)]}
    facts, findings = _facts(onnx_program, attempt)
    if not findings:
        from .numeric import compare

        facts["numeric_checks"] = []
        findings += compare(onnx_program, program, attempt, budget, facts["numeric_checks"])
    ok = not any(f["severity"] == "error" for f in findings)
    return {"target": "onnx", "ok": ok, "findings": findings, "facts": facts}


def refusal(exc: BaseException, program: Any) -> LoweringFinding:
    chain = causes(exc, depth=20)  # torch.onnx wraps its reason deep
    text = "\n".join(f"{type(e).__name__}: {e}" for e in chain)
    names = {type(e).__name__ for e in chain}
    overload = _OVERLOAD.search(text)
    op = f"{overload[1].replace('::', '.')}.{overload[2]}" if overload else ""
    node = _node(program, _NODE.search(text), op)
    where = f" `{op}`" if op else ""
    cause = _innermost(chain)

    def said(what: str, hint: str = "") -> str:
        return f"{what} ({cause.rstrip('.')})." + (f" {hint}" if hint else "")

    if "DispatchError" in names or "No ONNX function found" in text:
        hint = (
            "Rewrite the line with ops ONNX supports, or give `torch.onnx.export` a "
            f"`custom_translation_table={{torch.ops.{op.rpartition('.')[0] or 'ns.op'}.default: fn}}` "
            "(an onnxscript function)."
        )
        message = said(f"no ONNX translation nor decomposition for{where or ' an op'}", hint)
        return target_finding("onnx-no-translation", "error", message, node, op)
    if "step 2/3" in text or "decompose" in text.lower():
        return target_finding(
            "onnx-decomposition-failed", "error", said(f"decomposing for ONNX failed{where}"), node, op
        )
    if _DYNAMIC.search(text):
        hint = "Make the dim static in `dynamic_shapes`, or rewrite the shape arithmetic on this line."
        message = said(f"a dynamic dim cannot be kept{where}", hint)
        return target_finding("onnx-dynamic-shape", "error", message, node, op)
    message = said(f"torch.onnx.export refused the program{where}")
    return target_finding("onnx-export-error", "error", message, node, op)


def _innermost(chain: list[BaseException]) -> str:
    """The deepest exception's first lines: the actual reason, not torch's "next steps" banner."""
    text = str(chain[-1]).strip()
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    return " ".join(text.splitlines()[:3])[:500]


def _node(program: Any, named: re.Match[str] | None, op: str) -> Any:
    """The program's node torch names, else the first node of the op (its name may be a
    decomposition's: then the node it came from)."""
    nodes = call_nodes(program)
    if named is not None:
        for node in nodes:
            if node.name == named[1]:
                return node
    return next((n for n in nodes if op and op_name(n.target) == op), None)


def _facts(onnx_program: Any, attempt: Any) -> tuple[dict[str, Any], list[LoweringFinding]]:
    """Opset, op count, model size; and `onnx.checker`'s verdict when the weights are real."""
    model = onnx_program.model
    facts: dict[str, Any] = {"opset": model.opset_imports.get("", None), "ops": sum(1 for _ in model.graph)}
    findings: list[LoweringFinding] = []
    if no_values(onnx_program.exported_program, attempt):
        return facts, findings  # no weights to serialise; numeric.py says so
    import onnx

    proto = onnx_program.model_proto
    facts["model_bytes"] = proto.ByteSize()
    if facts["model_bytes"] < 2**31:  # the checker refuses protos above 2 GB by design
        try:
            onnx.checker.check_model(proto)
        except Exception as exc:  # noqa: BLE001 - onnx.checker.ValidationError and kin
            message = f"the ONNX model fails onnx.checker: {str(exc).strip().splitlines()[0][:400]}"
            findings.append(target_finding("onnx-checker-error", "error", message))
    return facts, findings
