"""Warnings from facts of the exported graph: train-mode dropout / batch-norm, in-place input writes.

The worker lists the graph's training-mode ops and input mutations with their source lines
(`summary["facts"]`); these find the call or the write on that line to point at.
"""

from __future__ import annotations

import ast
import re

from ...findings import Finding, Range, Related
from ...reading import read_document
from ...syntax import span
from ...textpos import SourceText
from ...worker.wire.records import GraphOp
from ..context import DiagnosisContext
from ..locate import Sources, export_call_place, is_workspace, workspace_frames

TRAINING_MODE = "exported-in-training-mode"
INPUT_MUTATED = "input-mutated"

# Layers whose train/eval state `.eval()` switches (the rest is a functional call).
_LAYER = re.compile(
    r"^(Lazy)?(Dropout\d?d?|AlphaDropout|FeatureAlphaDropout|BatchNorm\dd|SyncBatchNorm|RReLU)$"
)


def training_findings(
    ops: list[GraphOp], tree: ast.Module, ctx: DiagnosisContext, text: SourceText
) -> list[Finding]:
    """A layer's training-mode ops on the line that built it (`nn.Dropout(p)`, in whichever workspace
    file), the export call related, where `.eval()` goes; a functional call's on its own line."""
    sources = Sources(ctx)
    built: dict[tuple[str, int, int], list[GraphOp]] = {}
    by_line: dict[tuple[str, int], list[GraphOp]] = {}
    for op in ops:
        frames = workspace_frames(list(op.get("built") or []), ctx)
        if frames and _LAYER.match(str(op.get("module_class"))):
            place = sources.place(frames[-1])
            built.setdefault((place.path, place.range.start.line, place.range.start.character), []).append(op)
        elif (line := op.get("line")) and is_workspace(str(op.get("path") or ""), ctx):
            by_line.setdefault((str(op["path"]), line), []).append(op)
    findings = [_built_finding(group, sources, ctx) for group in built.values()]
    for (path, line), group in sorted(by_line.items()):
        here = (tree, text) if path == ctx.path else _parsed(path)
        if here is not None:
            findings.append(_call_finding(path, line, group, *here, ctx))
    return findings


_EFFECTS = {
    "dropout": "dropout stays random",
    "batch-norm": "batch-norm normalises with batch statistics and updates its running stats",
}
_EVAL = "Call `.eval()` on the model before `torch.export.export`"


def _kinds(group: list[GraphOp]) -> list[str]:
    return sorted({"batch-norm" if "batch_norm" in str(op["op"]) else "dropout" for op in group})


def _built_finding(group: list[GraphOp], sources: Sources, ctx: DiagnosisContext) -> Finding:
    place = sources.place(workspace_frames(list(group[0]["built"]), ctx)[-1])
    layers = sorted({str(op["module"]) for op in group})
    shown = ", ".join(f"`{m}`" for m in layers[:3]) + (
        f" and {len(layers) - 3} more" if len(layers) > 3 else ""
    )
    kinds = _kinds(group)
    call = export_call_place(ctx, "call")
    related = [Related(ctx.path, call.range if call else ctx.anchor, f"{_EVAL}: here")]
    used = next((op for op in group if op.get("line") and is_workspace(str(op.get("path") or ""), ctx)), None)
    if used is not None:
        line_range = sources.get(str(used["path"])).line_range(int(used.get("line") or 0) - 1)
        related.append(Related(str(used["path"]), line_range, "called here, in training mode"))
    return Finding(
        path=place.path,
        range=place.range,
        severity="warning",
        code=TRAINING_MODE,
        message=(
            f"The {' / '.join(kinds)} built here ({shown}) is exported in training mode with {ctx.label}: "
            f"{' and '.join(_EFFECTS[k] for k in kinds)} in the exported program. {_EVAL} "
            f"(the export call is related)."
        ),
        module=ctx.module,
        mode=ctx.mode,
        related=related,
        fix={"kind": "call-eval", "layers": layers},
    )


def _parsed(path: str) -> tuple[ast.Module, SourceText] | None:
    """Another workspace file's tree and text (parsed once per text: reading.py)."""
    try:
        doc = read_document(path)
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    return None if doc.syntax_error is not None else (doc.tree, doc.source_text)


def _call_finding(
    path: str,
    line: int,
    group: list[GraphOp],
    tree: ast.Module,
    text: SourceText,
    ctx: DiagnosisContext,
) -> Finding:
    """Ops whose layer's build site is unknown (or a functional call): on the line that calls them."""
    layers = sorted({str(op["module"]) for op in group if _LAYER.match(str(op.get("module_class")))})
    call_node = call_on_line(tree, line, [m.rpartition(".")[2] for m in layers] + list(FUNCTIONAL_TRAINING))
    call = span(call_node) if call_node else None
    # F.dropout(x, p) defaults to training=True: .eval() cannot switch it off.
    functional = not layers and call_node is not None and not passes_training(call_node)
    kinds = _kinds(group)
    names = ", ".join(f"`self.{m}`" for m in layers) or "this call"
    if functional:
        message = (
            f"{' / '.join(kinds)} is exported in training mode here, in {ctx.label}: the functional call "
            f"defaults to `training=True`, so the exported program stays random / uses batch statistics even "
            f"after `.eval()`. Pass `training=self.training`."
        )
        fix = {"kind": "pass-training-flag", "ops": kinds}
    else:
        message = (
            f"{names} ({' / '.join(kinds)}) is exported in training mode with {ctx.label}: "
            f"{' and '.join(_EFFECTS[k] for k in kinds)} in the exported program. {_EVAL}."
        )
        fix = {"kind": "call-eval", "layers": layers}
    return Finding(
        path=path,
        range=source_range(text, *call) if call else text.line_range(line - 1),
        severity="warning",
        code=TRAINING_MODE,
        message=message,
        module=ctx.module,
        mode=ctx.mode,
        fix=fix,
    )


def mutation_findings(
    mutations: list[GraphOp], tree: ast.Module, ctx: DiagnosisContext, text: SourceText
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
                    f"The forward of {ctx.label} writes into its input `{name}` in place "
                    f"({mutation.get('op')}): the exported program will modify the caller's tensor too, and "
                    f"some runtimes reject input mutation. "
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
