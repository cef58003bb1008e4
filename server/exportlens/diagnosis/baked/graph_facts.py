"""Warnings from facts of the exported graph: train-mode dropout / batch-norm, in-place input writes.

The worker lists the graph's training-mode ops and input mutations with their source lines
(`summary["facts"]`); these find the call or the write on that line to point at.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from ...findings import Finding, Range
from ...syntax import span
from ...textpos import SourceText
from ..context import DiagnosisContext

TRAINING_MODE = "exported-in-training-mode"
INPUT_MUTATED = "input-mutated"

# Layers whose train/eval state `.eval()` switches (the rest is a functional call).
_LAYER = re.compile(
    r"^(Lazy)?(Dropout\d?d?|AlphaDropout|FeatureAlphaDropout|BatchNorm\dd|SyncBatchNorm|RReLU)$"
)


def training_findings(
    ops: list[dict[str, Any]], tree: ast.Module, ctx: DiagnosisContext, text: SourceText
) -> list[Finding]:
    by_line: dict[int, list[dict[str, Any]]] = {}
    for op in ops:
        if op.get("path") == ctx.path and op.get("line"):
            by_line.setdefault(int(op["line"]), []).append(op)
    findings = []
    for line, group in sorted(by_line.items()):
        layers = sorted({str(op["module"]) for op in group if _LAYER.match(str(op.get("module_class")))})
        call_node = call_on_line(
            tree, line, [m.rpartition(".")[2] for m in layers] + list(FUNCTIONAL_TRAINING)
        )
        call = span(call_node) if call_node else None
        # F.dropout(x, p) defaults to training=True: .eval() cannot switch it off.
        functional = not layers and call_node is not None and not passes_training(call_node)
        kinds = sorted({"batch-norm" if "batch_norm" in str(op["op"]) else "dropout" for op in group})
        names = ", ".join(f"`self.{m}`" for m in layers) or "this call"
        if functional:
            message = (
                f"{' / '.join(kinds)} is exported in training mode here: the functional call defaults to "
                f"`training=True`, so the exported program stays random / uses batch statistics even "
                f"after `.eval()`. Pass `training=self.training`."
            )
            fix = {"kind": "pass-training-flag", "ops": kinds}
        else:
            effects = {
                "dropout": "dropout stays random",
                "batch-norm": "batch-norm normalises with batch statistics and updates its running stats",
            }
            message = (
                f"{names} ({' / '.join(kinds)}) is exported in training mode: "
                f"{' and '.join(effects[k] for k in kinds)} in the exported program. "
                f"Call `.eval()` on the model before `torch.export.export`."
            )
            fix = {"kind": "call-eval", "layers": layers}
        rng = source_range(text, *call) if call else text.line_range(line - 1)
        findings.append(
            Finding(
                path=ctx.path,
                range=rng,
                severity="warning",
                code=TRAINING_MODE,
                message=message,
                module=ctx.module,
                mode=ctx.mode,
                fix=fix,
            )
        )
    return findings


def mutation_findings(
    mutations: list[dict[str, Any]], tree: ast.Module, ctx: DiagnosisContext, text: SourceText
) -> list[Finding]:
    findings, seen = [], set()
    for mutation in mutations:
        line, name = mutation.get("line"), str(mutation.get("input"))
        if mutation.get("path") != ctx.path or not line or (line, name) in seen:
            continue
        seen.add((line, name))
        where = mutation_on_line(tree, int(line), name)
        rng = source_range(text, *where) if where else text.line_range(int(line) - 1)
        findings.append(
            Finding(
                path=ctx.path,
                range=rng,
                severity="warning",
                code=INPUT_MUTATED,
                module=ctx.module,
                mode=ctx.mode,
                message=(
                    f"forward writes into its input `{name}` in place ({mutation.get('op')}): the exported "
                    f"program will modify the caller's tensor too, and some runtimes reject input mutation. "
                    f"Use an out-of-place op (`{name} = {name} + ...`) or work on `{name}.clone()`."
                ),
                fix={"kind": "out-of-place", "input": name, "op": mutation.get("op")},
            )
        )
    return findings


def source_range(text: SourceText, line: int, col: int, end_line: int, end_col: int) -> Range:
    """The range of a CPython span (1-based lines, UTF-8 byte columns)."""
    return text.span(line - 1, col, end_line - 1, end_col)


FUNCTIONAL_TRAINING = {
    "dropout": 2,
    "alpha_dropout": 2,
    "feature_alpha_dropout": 2,
    "dropout1d": 2,
    "dropout2d": 2,
    "dropout3d": 2,
    "batch_norm": 5,
    "rrelu": 3,
}


def call_on_line(tree: ast.Module, line: int, names: list[str]) -> ast.Call | None:
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.lineno == line]
    for call in sorted(calls, key=lambda n: n.col_offset):
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in names:
            return call
    return None


def passes_training(call: ast.Call) -> bool:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name not in FUNCTIONAL_TRAINING:
        return True  # a layer call: .eval() switches it
    return any(k.arg == "training" for k in call.keywords) or len(call.args) > FUNCTIONAL_TRAINING[name]


def mutation_on_line(tree: ast.Module, line: int, name: str) -> tuple[int, int, int, int] | None:
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) != line:
            continue
        if isinstance(node, (ast.AugAssign, ast.Assign)) and name in {
            n.id
            for t in getattr(node, "targets", [getattr(node, "target", None)])
            for n in ast.walk(t)
            if isinstance(n, ast.Name)
        }:
            return span(node)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr.endswith("_")
        ):
            return span(node)
    return None
