"""coreml: does coremltools convert the program to a Core ML mlprogram? (docs/targets.md)

In the child, with the user's `coremltools`: `ct.convert(program.run_decompositions({}),
minimum_deployment_target=ct.target.iOS17)`.  A refusal is on the line of the node coremltools
names: the decomposed program's node (its name is the one coremltools prints, "converting '...' op
(located at: '_unique2')"; its stack trace is the user's line).  Running the model needs Core ML
itself (macOS): said as a fact, never an error.  Without `coremltools` the target is skipped with the
install hint.
"""

from __future__ import annotations

import contextlib
import io
import logging
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..capture.graph_breaks import causes
from ..core.budget import Budget
from ..wire.records import LoweringFinding, LoweringResult
from ..wire.targets import BY_NAME
from .coreml_form import form_refusal
from .nodes import call_nodes, op_name, target_finding
from .values import cannot_run

NEEDS = BY_NAME["coreml"].needs
INSTALL = "`coremltools` is not installed in the checked interpreter: `pip install coremltools`"
NO_VALUES = (
    "not converted to Core ML: the model was built {why}, so there are no weights to put in the "
    "mlprogram. Set `exportlens.device` to `cpu` (`--device cpu`) or raise `metaAboveMb`."
)
RUN_FACT = "not run: Core ML runs models on macOS only" if sys.platform != "darwin" else "not run"
DEPLOYMENT = "iOS17"
# Where coremltools names the node: its log line while converting, then its exceptions' words.
_LOCATED = re.compile(r"converting '\w+' op \(located at: '(\w+)'\)")
_NAMED = (
    re.compile(r"Unsupported fx node (\w+), kind"),
    re.compile(r"\bnode (\w+) \(\w+\)"),
)
_KIND = re.compile(r"convert function for op '(\w+)'|Torch `(\w+)` op|kind (\w+)")
UNSUPPORTED = (
    "Rewrite the line with ops coremltools converts, register a translation with coremltools' "
    "`@register_torch_op` (a composite of MIL ops), or lower to another target."
)
# A slice over a whole dim (minGPT's `self.pos_emb[:, :t, :]` at t = block_size) exports as a
# no-op view, `aten.alias`; coremltools 9.0 converts the model once `alias` is its input unchanged.
ALIAS = (
    "A slice over the whole dim exports as `aten.alias` (the tensor unchanged). Register it as an "
    "identity before `ct.convert` (`mb` is `coremltools.converters.mil.Builder`): `@register_torch_op` "
    "`def alias(context, node): context.add(mb.identity(x=context[node.inputs[0]], name=node.name))`; "
    "or leave the slice out when it takes the whole dim."
)
_UNSUPPORTED = re.compile(r"Unsupported fx node|convert function for op '\w+' not implemented")


def check(program: Any, attempt: Any, path: str, budget: Budget) -> LoweringResult:
    if (unable := cannot_run("coreml", NEEDS, INSTALL, NO_VALUES, program, attempt)) is not None:
        return unable
    with budget.bounded(share=0.9):
        with _quiet() as said:  # imported in the bound: seconds in a cold child
            import coremltools as ct

            decomposed = program.run_decompositions({})
            try:
                model = ct.convert(decomposed, minimum_deployment_target=ct.target.iOS17)
            except Exception as exc:  # noqa: BLE001 - coremltools' refusal, placed on the user's line
                finding = refusal(exc, decomposed, said)
                return {"target": "coreml", "ok": False, "findings": [finding], "facts": _versions(ct)}
    try:
        facts = {**_facts(model), **_versions(ct)}
    finally:
        _remove_package(model)
    return {"target": "coreml", "ok": True, "findings": [], "facts": facts}


def refusal(exc: BaseException, program: Any, said: list[str]) -> LoweringFinding:
    """coremltools' own text, on the node it names (else on the module), with what to do."""
    chain = causes(exc, depth=20)
    text = "\n".join(str(e) for e in chain)
    node = _node(program, "\n".join(said), text)
    op = op_name(node.target) if node is not None else ""
    where = f" `{op}`" if op else ""
    reason = f"{type(chain[-1]).__name__}: {_first_lines(chain[-1]).rstrip('.')}"
    if (form := form_refusal(text, reason, program)) is not None:
        return form
    if _UNSUPPORTED.search(text):
        message = f"coremltools has no translation for{where or ' an op'} ({reason}). " + (
            ALIAS if op == "aten.alias.default" else UNSUPPORTED
        )
        return target_finding("coreml-unsupported-op", "error", message, node, op)
    message = (
        f"`ct.convert` refused the program{' at' + where if where else ''} ({reason}). coremltools' "
        "translation does not take this form of the op: rewrite the line with another spelling of it, "
        "override the translation with `@register_torch_op(override=True)`, or lower to another target."
    )
    return target_finding("coreml-conversion-error", "error", message, node, op)


def _node(program: Any, said: str, text: str) -> Any:
    """The program's node coremltools names: by name (its log line, its messages), else by op kind."""
    nodes = call_nodes(program)
    by_name = {n.name: n for n in nodes}
    for pattern in (_LOCATED, *_NAMED):
        for match in pattern.finditer(f"{said}\n{text}"):
            if match[1] in by_name:
                return by_name[match[1]]
    for match in _KIND.finditer(text):
        kind = next(k for k in match.groups() if k)
        found = next((n for n in nodes if op_name(n.target).split(".")[1:2] == [kind]), None)
        if found is not None:
            return found
    return None


def _facts(model: Any) -> dict[str, Any]:
    """Op count (the mlprogram's main function, its consts left out), spec and weight sizes."""
    facts: dict[str, Any] = {}
    program = getattr(model, "_mil_program", None)
    if program is not None and "main" in program.functions:
        facts["ops"] = sum(1 for op in program.functions["main"].operations if op.op_type != "const")
    facts["spec_bytes"] = model.get_spec().ByteSize()
    weights = Path(str(model.weights_dir)) if getattr(model, "weights_dir", None) else None
    if weights is not None and weights.is_dir():
        facts["weights_bytes"] = sum(f.stat().st_size for f in weights.rglob("*") if f.is_file())
    facts["deployment_target"] = DEPLOYMENT
    facts["numeric_check"] = RUN_FACT
    return facts


def _versions(ct: Any) -> dict[str, Any]:
    return {"coremltools": str(ct.__version__)}


def _remove_package(model: Any) -> None:
    """ct.convert writes the mlpackage into the temp folder; the child may exit before `__del__`."""
    package = getattr(model, "package_path", None)
    if package and getattr(model, "is_temp_package", False):
        shutil.rmtree(str(package), ignore_errors=True)
        model.is_temp_package = False


@contextlib.contextmanager
def _quiet() -> Iterator[list[str]]:
    """coremltools' log lines (kept: they name the node) and its progress bars, out of the child's output."""
    said: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            said.append(record.getMessage())

    logger = logging.getLogger("coremltools")
    handler, propagate = Collect(logging.WARNING), logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        with contextlib.redirect_stderr(io.StringIO()):  # tqdm writes to sys.stderr as it is when it starts
            yield said
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def _first_lines(exc: BaseException) -> str:
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).strip()
    return " ".join(text.splitlines()[:3])[:500]
