"""Static discovery (no torch): which modules a file defines and how to feed them.

Input sources, in order: the file's own export call, an `example_inputs()` /
`get_example_inputs()` method, inference from the first layer, else none.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from .export_calls import ExportCall, find_export_calls, load_stop
from .infer import infer_inputs
from .syntax import dotted, resolve, torch_imports

EXAMPLE_METHODS = ("example_inputs", "get_example_inputs")
_MODULE_BASES = ("torch.nn.", "nn.")


@dataclass
class Target:
    """One thing to export: a module class of the file, or an export call's module."""

    name: str
    class_name: str | None
    node: ast.AST  # where findings fall back to: the class name or the export call
    inputs: dict[str, Any]  # wire spec for the worker; {"kind": "none"} when there is nothing
    # Other module classes of the file this one is built from (checked along with it).
    uses: set[str] = field(default_factory=set)

    @property
    def inputs_kind(self) -> str:
        return str(self.inputs["kind"])


@dataclass
class Discovery:
    targets: list[Target]
    load_until: list[int] | None  # [line, col] of the first top-level statement not to run
    error: SyntaxError | None = None


def discover(source: str, path: str = "<buffer>") -> Discovery:
    try:
        tree = ast.parse(source, path)
    except SyntaxError as exc:
        return Discovery([], None, exc)
    imports = torch_imports(tree)
    classes = module_classes(tree, imports)
    calls = find_export_calls(tree, source, imports)
    constants = _int_constants(tree)
    targets: list[Target] = []
    claimed: set[str] = set()
    for call in calls:
        if call.class_name in classes and call.class_name in claimed:
            continue  # the first export call of a class provides its inputs
        spec = _call_spec(call)
        if call.class_name in classes:
            claimed.add(call.class_name)
            cls = classes[call.class_name]
            targets.append(Target(cls.name, cls.name, cls, spec))
        else:
            name = (call.class_name or call.target_text or "module").rpartition(".")[2]
            targets.append(Target(name, None, call.node, spec))
    for name, cls in classes.items():
        if name in claimed:
            continue
        method = next((m for m in EXAMPLE_METHODS if _has_method(cls, m, classes)), None)
        if method:
            spec = {"kind": "example-inputs", "class": name, "method": method}
        elif expr := infer_inputs(cls, constants):
            spec = {"kind": "inferred", "class": name, "expr": expr}
        else:
            spec = {"kind": "none", "class": name}
        targets.append(Target(name, name, cls, spec))
    for target in targets:
        if target.class_name:
            target.uses = _used_classes(classes[target.class_name], set(classes) - {target.class_name})
    targets.sort(key=lambda t: (getattr(t.node, "lineno", 0), getattr(t.node, "col_offset", 0)))
    stop = load_stop(tree, imports)
    return Discovery(targets, [stop.lineno, stop.col_offset] if stop else None)


def module_classes(tree: ast.Module, imports: dict[str, str]) -> dict[str, ast.ClassDef]:
    """Top-level classes deriving from torch.nn (directly or through each other)."""
    classes: dict[str, ast.ClassDef] = {}
    changed = True
    while changed:  # a subclass may come before its base class in the file
        changed = False
        for node in tree.body:
            if not isinstance(node, ast.ClassDef) or node.name in classes:
                continue
            for base in node.bases:
                full = resolve(dotted(base), imports) or ""
                if full.startswith(_MODULE_BASES) or dotted(base) in classes:
                    classes[node.name] = node
                    changed = True
                    break
    return classes


def _call_spec(call: ExportCall) -> dict[str, Any]:
    return {
        "kind": "export-call",
        "call": [call.node.lineno, call.node.col_offset],
        "prelude": [[s.lineno, s.col_offset] for s in call.prelude],
        "line": call.node.lineno - 1,
    }


def _has_method(cls: ast.ClassDef, name: str, classes: dict[str, ast.ClassDef], depth: int = 0) -> bool:
    """Defined in the class or inherited from another module class of the file."""
    if any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name for s in cls.body):
        return True
    bases = [classes[b] for b in (dotted(base) for base in cls.bases) if b in classes]
    return depth < 20 and any(_has_method(base, name, classes, depth + 1) for base in bases)


def _used_classes(cls: ast.ClassDef, others: set[str]) -> set[str]:
    return {n.id for n in ast.walk(cls) if isinstance(n, ast.Name) and n.id in others}


def _int_constants(tree: ast.Module) -> dict[str, int]:
    constants: dict[str, int] = {}
    for stmt in tree.body:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Constant)
            and type(stmt.value.value) is int
        ):
            constants[stmt.targets[0].id] = stmt.value.value
    return constants
