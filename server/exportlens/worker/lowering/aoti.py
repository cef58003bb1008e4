"""aoti: does AOTInductor compile the program, and does the package run the same? (docs/targets.md)

`torch._inductor.aoti_compile_and_package` compiles the exported program to a C++ package (g++,
tens of seconds: on demand only, lowerings.ON_DEMAND), which is then loaded and run on the example
inputs and, for each dynamic dim, a second size inside its range (numeric.py's input sets), with
the package's input checks on.  A compile error is placed on the node the error names (by its
name, its op, or the "Source Nodes" comment of the generated kernel), else on the module; a run
that raises, or differs from eager beyond torch's own tolerance, is a finding too.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import time
from typing import Any

from ..capture.graph_breaks import causes
from ..core.budget import Budget
from ..wire.records import LoweringFinding, LoweringResult
from .nodes import call_nodes, op_name, target_finding
from .values import no_values

_NODE_NAME = re.compile(r"%(\w+)|\bnode[: ]+'?(\w+)")
_SOURCE_NODES = re.compile(r"Source Nodes: \[([^\]]*)\]")
_TARGET = re.compile(r"target: ([\w.:]+)")
_ASSERT = re.compile(r"expression (.+?) on node")


def check(program: Any, attempt: Any, path: str, budget: Budget) -> LoweringResult:
    if no_values(program, attempt):
        why = "with meta weights" if getattr(attempt, "meta", False) else "as fake tensors on a device"
        message = (
            f"not compiled with AOTInductor: the model was built {why}, so there are no weights to compile"
            " in. Set `exportlens.device` to `cpu` (`--device cpu`) or raise `metaAboveMb`."
        )
        findings = [target_finding("target-not-run", "information", message)]
        return {"target": "aoti", "ok": False, "findings": findings}
    import torch

    # Read by the package at its first run (this child's): it checks each input's dtype, sizes, dim ranges.
    os.environ.setdefault("AOTI_RUNTIME_CHECK_INPUTS", "1")
    package = package_path(path, type(attempt.module).__name__)
    os.makedirs(os.path.dirname(package), exist_ok=True)
    started = time.perf_counter()
    with budget.bounded(share=0.85):  # the rest for running the package
        try:
            torch._inductor.aoti_compile_and_package(program, package_path=package)
        except Exception as exc:  # noqa: BLE001 - inductor's refusal, placed on the user's line
            return {"target": "aoti", "ok": False, "findings": [compile_refusal(exc, program)]}
    facts: dict[str, Any] = {
        "compile_seconds": round(time.perf_counter() - started, 2),
        "package_bytes": os.path.getsize(package),
        "package_path": package,
        "checked": [],
    }
    with budget.bounded(share=0.9):
        findings = run_package(torch._inductor.aoti_load_package(package), program, attempt, facts["checked"])
    ok = not any(f["severity"] == "error" for f in findings)
    return {"target": "aoti", "ok": ok, "findings": findings, "facts": facts}


def package_path(path: str, module: str) -> str:
    """One package per file and module, overwritten by the next compile: the temp folder never grows."""
    digest = hashlib.sha256(os.path.abspath(path).encode()).hexdigest()[:10]
    stem = os.path.splitext(os.path.basename(path))[0]
    return os.path.join(tempfile.gettempdir(), "exportlens-aoti", f"{stem}-{module}-{digest}.pt2")


def run_package(runner: Any, program: Any, attempt: Any, checked: list[str]) -> list[LoweringFinding]:
    """The package on each input set against eager; the first refusal or mismatch is the finding."""
    import torch

    from .numeric import input_sets, leaves_of

    with torch.no_grad():
        for label, args, kwargs in input_sets(program, attempt.args, attempt.kwargs or {}):
            want = [t for t in leaves_of(attempt.module(*args, **kwargs)) if isinstance(t, torch.Tensor)]
            try:
                got = [t for t in leaves_of(runner(*args, **kwargs)) if isinstance(t, torch.Tensor)]
            except Exception as exc:  # noqa: BLE001 - the package's runtime check, placed on its line
                return [run_refusal(exc, program, label)]
            checked.append(label)
            mismatch = _mismatch(want, got)
            if mismatch:
                message = f"the compiled package's outputs differ from eager on {label}: {mismatch}."
                return [target_finding("aoti-numeric-mismatch", "warning", message)]
    return []


def _mismatch(want: list[Any], got: list[Any]) -> str:
    """torch.testing.assert_close's verdict (torch's own dtype-based tolerances), '' when all agree."""
    import torch

    if len(want) != len(got):
        return f"{len(got)} tensor outputs where eager has {len(want)}"
    for index, (w, g) in enumerate(zip(want, got, strict=True)):
        try:
            torch.testing.assert_close(g.to(w.device), w, equal_nan=True)
        except AssertionError as exc:
            said = [line.strip() for line in str(exc).splitlines()]
            lines = [line for line in said if line.startswith(("Greatest", "Mism"))]
            return f"output {index}: " + ("; ".join(lines) or str(exc).splitlines()[0])[:400]
    return ""


def compile_refusal(exc: BaseException, program: Any) -> LoweringFinding:
    text = _text(exc)
    node = _named_node(program, text) or _compiling_node(exc)
    op = op_name(node.target) if node is not None else ""
    where = f" at `{op}`" if op else " (torch names no node of the graph: shown on the module)"
    cause = " ".join(text.strip().splitlines()[-3:])[:600] if "CppCompileError" in text else _first(text)
    message = (
        f"cannot compile the program{where}: {type(exc).__name__}: {cause}. Rewrite the line"
        " with other ops, or keep this module out of the AOTInductor build."
    )
    return target_finding("aoti-compile-error", "error", message, node, op)


def run_refusal(exc: BaseException, program: Any, label: str) -> LoweringFinding:
    text = _text(exc)
    node = _assert_node(program, text) or _named_node(program, text)
    op = op_name(node.target) if node is not None else ""
    inside = "" if label == "the example inputs" else ", inside the dim's range, that torch.export accepts"
    message = (
        f"the compiled package refuses {label}{inside}: {_first(text)}. Check the dim's range in"
        " `dynamic_shapes` and the `torch._check` on the line."
    )
    return target_finding("aoti-runtime-error", "error", message, node, op)


def _text(exc: BaseException) -> str:
    parts = [f"{type(e).__name__}: {e}" for e in causes(exc, depth=10)]
    return re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(parts))


def _first(text: str) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line.split(": ", 1)[-1].rstrip(".")[:500]


def _named_node(program: Any, text: str) -> Any:
    """The node the error names: `%name`, a kernel's "Source Nodes: [a, b]" comment, else its op."""
    nodes = call_nodes(program)
    by_name = {str(n.name): n for n in nodes}
    names = [a or b for a, b in _NODE_NAME.findall(text)]
    for listed in _SOURCE_NODES.findall(text):
        names += [name.strip() for name in listed.split(",")]
    for name in names:
        if name in by_name:
            return by_name[name]
    ops = {t.replace("::", ".") for t in _TARGET.findall(text)}
    return next((n for n in nodes if op_name(n.target) in ops or str(n.target) in ops), None)


def _compiling_node(exc: BaseException) -> Any:
    """The graph node inductor was lowering or generating code for when it raised: the innermost
    frame whose locals hold an fx node, or an IR node with its origins (they keep the stack trace)."""
    import torch

    found = None
    for error in causes(exc, depth=10):
        tb = error.__traceback__
        while tb is not None:
            for value in tb.tb_frame.f_locals.values():
                if isinstance(value, torch.fx.Node):
                    origins: Any = [value]
                else:  # an ir.IRNode: its `origins` is an OrderedSet of fx nodes
                    origins = getattr(value, "origins", None)
                    if not hasattr(origins, "__iter__") or isinstance(origins, (str, bytes, dict)):
                        continue
                traced = [n for n in origins if isinstance(n, torch.fx.Node) and n.meta.get("stack_trace")]
                if traced:
                    found = traced[0]  # innermost wins: later frames overwrite
            tb = tb.tb_next
    return found


def _assert_node(program: Any, text: str) -> Any:
    """The `_assert_scalar` node whose expression the package's runtime assert printed."""
    for node in call_nodes(program):
        if "assert" in str(node.target) and len(node.args) > 1:
            found = _ASSERT.search(str(node.args[1]))
            if found and found[1] in text:
                return node
    return None
