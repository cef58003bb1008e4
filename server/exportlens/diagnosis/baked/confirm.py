"""Side-effect sites of forward, each kept only when the export confirms it mattered.

Strict's side-effect warnings name the mutated globals and `self`; non-strict warns about
tensor attributes by name; branches whose lines made no ops while the other branch did were not
taken; a tensor written in place is a cache only when export made it a constant.  The entry point
`baked_findings` adds the warnings from the graph's own facts (`graph_facts`).
"""

from __future__ import annotations

import ast
import re
from typing import Any

from ...findings import Finding
from ...textpos import SourceText
from ...worker.wire.records import ExportSummary
from ..context import DiagnosisContext
from ..decode_step import decode_findings
from ..gpu_path import gpu_path_findings
from ..narrowed import narrowed_findings
from .classes import built_from
from .effects import KINDS as PROCESS_KINDS
from .effects import explain, explain_cache
from .graph_facts import mutation_findings, source_range, training_findings
from .sites import Site, find_sites

SIDE_EFFECT = "side-effect-baked"
TENSOR_ATTRIBUTE = "tensor-attribute-not-buffer"

_GLOBAL_SOURCE = re.compile(r"G\['[^']*'\]\.(\w+)")
_METADATA = re.compile(r"\.(shape|dtype|device|ndim)\b|\.(size|dim|numel)\(|\blen\(")
_TENSOR_ATTR = re.compile(r"tensor attribute self\.([\w.]+) was assigned")


def baked_findings(summary: ExportSummary, ctx: DiagnosisContext) -> list[Finding]:
    """Static analysis of the module's source, confirmed by what the export did (`summary`)."""
    if ctx.document.syntax_error is not None:
        return []
    tree = ctx.document.tree
    text = ctx.document.source_text
    facts = summary["facts"]
    # The module's own forward, and those of the file's classes it is built from: a KV cache or a
    # print in a submodule's forward is baked in just the same.
    built = built_from(tree, ctx.class_name)
    found = [site for name in built for site in find_sites(tree, ctx.source, name)[0]]
    sites = list({(s.line, s.col, s.kind): s for s in found}.values())  # a base class's, once
    findings = [f for site in sites if (f := _site(site, summary, ctx, text))]
    if ctx.inputs == "export-call":  # a module ExportLens built itself is in train mode by default
        findings += training_findings(facts.get("training_ops", []), tree, ctx, text)
    findings += mutation_findings(facts.get("input_mutations", []), tree, ctx, text)
    findings += decode_findings(summary, ctx)
    return findings + narrowed_findings(summary, ctx) + gpu_path_findings(summary, ctx)


def _site(site: Site, summary: ExportSummary, ctx: DiagnosisContext, text: SourceText) -> Finding | None:
    if not _branch_taken(site, _op_lines(summary, ctx.path)):
        return None
    warnings_text = [str(w.get("message", "")) for w in summary["warnings"]]
    strict = ctx.mode == "strict"
    side_globals = {m for w in warnings_text for m in _GLOBAL_SOURCE.findall(w)}
    self_mutated = any("L['self']" in w and "side effects" in w for w in warnings_text)
    tensor_attrs = {m.rpartition(".")[2] for w in warnings_text for m in _TENSOR_ATTR.findall(w)}
    kind, code = site.kind, SIDE_EFFECT
    if kind in PROCESS_KINDS and strict:
        return None  # dynamo refuses these when it traces them: an export that passed did not
    if kind == "tensor-attribute-inplace":
        constants = {str(i["target"]) for i in summary["inputs"] if i["kind"] == "constant_tensor"}
        if not any(c == site.name or c.endswith("." + site.name) for c in constants):
            return None  # export did not make it a constant (a registered buffer after all)
        code = TENSOR_ATTRIBUTE
    if kind == "global-mutation" and strict and site.name not in side_globals:
        return None  # dynamo tracks global mutation and did not see this one run
    if kind == "tensor-attribute":
        # Strict names no attribute, only that `self` changed: trust it unless the value is
        # plainly metadata (`x.shape`, `len(x)`) and the graph dropped no op on that line.
        confirmed = site.name in tensor_attrs or (
            strict
            and self_mutated
            and (_unused_op_on(summary, site, ctx.path) or not _METADATA.search(site.text.partition("=")[2]))
        )
        if confirmed:
            code = TENSOR_ATTRIBUTE
        elif strict and self_mutated:
            kind = "attribute-mutation"
        else:
            return None  # not a tensor (non-strict only warns for tensors): nothing proves harm
    if kind == "attribute-mutation" and strict and not self_mutated:
        return None
    message, fix = _explain(kind, site, ctx.mode)
    return Finding(
        path=ctx.path,
        range=source_range(text, site.line, site.col, site.end_line, site.end_col),
        severity="warning",
        code=code,
        message=message,
        module=ctx.module,
        mode=ctx.mode,
        fix=fix,
    )


def _explain(kind: str, site: Site, mode: str) -> tuple[str, dict[str, Any]]:
    where = f"`{site.function}` (called from forward)" if site.function != "forward" else "`forward`"
    if kind in PROCESS_KINDS:
        return explain(kind, site.text, where)
    if kind == "tensor-attribute-inplace":
        return explain_cache(site.name, site.text)
    once = "runs once, while exporting, and is not part of the exported program"
    guard = "Move it out of forward, or guard it with `if not torch.compiler.is_exporting():`."
    if kind in ("print", "logging"):
        printed = " (non-strict export ran it at export time)" if mode == "non-strict" else ""
        what = "`print`" if kind == "print" else f"Logging call `{site.name}`"
        return (
            f"{what} in {where} {once}{printed}: it never runs when the program is called. {guard}",
            {"kind": "guard-not-exporting", "name": site.name},
        )
    if kind == "global-mutation":
        return (
            f"`{site.text}` changes the global `{site.name}` once at export time; the exported program "
            f"never does. Keep state out of forward: return the value, or register a buffer and update "
            f"it in place.",
            {"kind": "move-out-of-forward", "name": site.name},
        )
    if kind == "attribute-mutation":
        return (
            f"`{site.text}` {once}: the exported program keeps the value `self.{site.name}` had then "
            f"as a constant and never updates it. Register it as a buffer "
            f'(`self.register_buffer("{site.name}", torch.zeros(()))`) and update it in place, or keep '
            f"this state outside forward.",
            {"kind": "register-buffer", "name": site.name},
        )
    if kind == "tensor-attribute":
        return (
            f"`self.{site.name}` is assigned a tensor in {where} but is not a registered buffer: the "
            f"assignment is dropped from the exported program. Declare it in `__init__` with "
            f'`self.register_buffer("{site.name}", ..., persistent=False)` and update it in place '
            f"(`self.{site.name}.copy_(...)`), or return it.",
            {"kind": "register-buffer", "name": site.name},
        )
    does = {"clock": "reads the clock", "random": "draws a Python random value", "id": "takes an object id"}
    return (
        f"`{site.text}` {does.get(kind, 'runs')} once at export time; the result is baked into the "
        f"graph as a constant. Pass the value in as an input tensor (or use torch ops such as "
        f"`torch.rand` for randomness).",
        {"kind": "pass-as-input", "call": site.name},
    )


def _op_lines(summary: ExportSummary, path: str) -> set[int]:
    return {int(line) for line in summary["lines"].get(path, {})}


def _branch_taken(site: Site, op_lines: set[int]) -> bool:
    """False when the site's branch made no ops but the other branch did: export took the other one."""
    for inside, other in site.branches:
        if not _lines(inside) & op_lines and _lines(other) & op_lines:
            return False
    return True


def _lines(stmts: list[ast.stmt]) -> set[int]:
    return {line for s in stmts for line in range(s.lineno, (s.end_lineno or s.lineno) + 1)}


def _unused_op_on(summary: ExportSummary, site: Site, path: str) -> bool:
    unused = summary["facts"].get("unused_ops", [])
    return any(
        u.get("path") == path and site.line <= int(u.get("line") or 0) <= site.end_line for u in unused
    )
