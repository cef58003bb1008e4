"""Static discovery (no torch): which modules a file defines and how to feed them.

Input sources, in order: the file's own export call, an `example_inputs()` /
`get_example_inputs()` method, inference from the first layer, else none.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from ..document import Document
from ..syntax import dotted, resolve, span, torch_imports
from .compile_calls import CompileCall, find_compile_calls
from .export_calls import ExportCall, find_export_calls, load_stop
from .infer import infer_inputs
from .loops import prelude_spec

EXAMPLE_METHODS = ("example_inputs", "get_example_inputs")
_MODULE_BASES = ("torch.nn.", "nn.")


@dataclass
class Subject:
    """One module to check (export, or compile): a module class of the file, or an export call's
    module. The job message still calls its spec `target` (protocol.TargetSpec)."""

    name: str
    class_name: str | None
    node: ast.AST  # where findings fall back to: the class name or the export call
    inputs: dict[str, Any]  # wire spec for the worker; {"kind": "none"} when there is nothing
    # Other module classes of the file this one is built from (checked along with it).
    uses: set[str] = field(default_factory=set)
    # A class with no real inputs of its own that a module with real inputs is built from: it is
    # checked as part of that module (its name here), never alone on guessed inputs.
    part_of: str | None = None
    # The export call whose inputs it is checked with (inputs kind "export-call"): its node, so
    # nothing has to find it again by the line and column the worker's spec carries.
    call: ast.Call | None = None
    # Checked as torch.compile traces it (compile_calls.py, worker/job/compiled.py), not exported.
    compile: dict[str, Any] | None = None
    function: str | None = None  # a plain function of this file compiled (its lens is here)

    @property
    def inputs_kind(self) -> str:
        return str(self.inputs["kind"])


@dataclass
class Discovery:
    subjects: list[Subject]
    load_until: list[int] | None  # [line, col] of the first top-level statement not to run
    error: SyntaxError | None = None


def discover(source: str, path: str = "<buffer>") -> Discovery:
    """Discovery of a text that has no `Document` (tests, a patched text): parses it."""
    return discovery_of(Document(path, source))


def discovery_of(doc: Document) -> Discovery:
    """What the document defines and exports: computed once per document, kept with it."""
    return doc.derived("discovery", _discover)


def _discover(doc: Document) -> Discovery:
    """On the document's one syntax tree."""
    if doc.syntax_error is not None:
        return Discovery([], None, doc.syntax_error)
    tree, source = doc.tree, doc.text
    imports = torch_imports(tree)
    classes = module_classes(tree, imports)
    calls = find_export_calls(tree, source, imports)
    constants = _int_constants(tree)
    subjects: list[Subject] = []
    claimed: dict[str, frozenset[str]] = {}  # class -> the export options of its first call
    for call in calls:
        if call.class_name in classes and call.class_name in claimed:
            # The first export call of a class provides its inputs; a later one exporting it
            # differently (static first, then with dynamic_shapes / strict) is checked too.
            if _options(call) == claimed[call.class_name]:
                continue
            name = f"{call.class_name}@{call.node.lineno}"
            subjects.append(Subject(name, None, call.node, _call_spec(call), call=call.node))
            continue
        spec = _call_spec(call)
        if call.class_name in classes:
            claimed[call.class_name] = _options(call)
            cls = classes[call.class_name]
            subjects.append(Subject(cls.name, cls.name, cls, spec, call=call.node))
        else:
            name = _subject_name(call.class_name or call.target_text or "module")
            if any(t.name == name for t in subjects) or name in classes:
                # Two calls exporting the same library model (static, then dynamic): both are
                # checked, so each needs its own name (jobs with one name supersede each other).
                name = f"{name}@{call.node.lineno}"
            subjects.append(Subject(name, None, call.node, spec, call=call.node))
    compiled = _compiled_subjects(find_compile_calls(tree, imports), classes, claimed)
    subjects += compiled
    for name, cls in classes.items():
        if name in claimed or any(t.class_name == name for t in compiled):
            continue  # a class only compiled is not judged as an export
        method = next((m for m in EXAMPLE_METHODS if _has_method(cls, m, classes)), None)
        if method:
            spec = {"kind": "example-inputs", "class": name, "method": method}
        elif expr := infer_inputs(cls, constants):
            spec = {"kind": "inferred", "class": name, "expr": expr}
        else:
            spec = {"kind": "none", "class": name, "why": _why_no_inputs(cls)}
        subjects.append(Subject(name, name, cls, spec))
    outside = _outside_classes(tree, set(classes))
    for subject in subjects:
        if subject.class_name:
            subject.uses = _used_classes(classes[subject.class_name], set(classes) - {subject.class_name})
        elif subject.call is not None:
            # What it exports is known only when it runs (a factory, `wrapper.module`): any class the
            # script's code names may be it, or a part of it (the export's result key keeps them).
            subject.uses = set(outside)
    _close_uses(subjects)
    _mark_parts(subjects)
    subjects.sort(key=lambda t: (getattr(t.node, "lineno", 0), getattr(t.node, "col_offset", 0)))
    stop = load_stop(tree, imports)
    return Discovery(subjects, [stop.lineno, stop.col_offset] if stop else None)


REAL_INPUTS = ("export-call", "example-inputs")


def _mark_parts(subjects: list[Subject]) -> None:
    """Classes built (directly or through others) into a module that has real inputs."""
    by_class = {t.class_name: t for t in subjects if t.class_name}
    for parent in subjects:
        if parent.class_name is None or parent.inputs_kind not in (*REAL_INPUTS, "compile-call"):
            continue
        todo = sorted(parent.uses)
        while todo:
            child = by_class.get(todo.pop())
            if child is None or child.part_of is not None or child.inputs_kind in REAL_INPUTS:
                continue
            child.part_of = parent.name
            todo.extend(sorted(child.uses))


def _compiled_subjects(
    calls: list[CompileCall], classes: dict[str, ast.ClassDef], exported: dict[str, frozenset[str]]
) -> list[Subject]:
    """One subject per compiled object: fed its first call, else its class's inputs as for export."""
    subjects: list[Subject] = []
    for call in calls:
        if call.training is not None:  # never run: the check makes no backward or optimizer step
            line, step = call.training
            none = {"kind": "none", "class": call.name, "why": "training-step", "line": line, "step": step}
            flags: dict[str, Any] = {"fullgraph": call.fullgraph, "dynamic": call.dynamic}
            name = _subject_name(call.function or call.name)
            subjects.append(Subject(name, None, call.node, none, compile=flags, function=call.function))
            continue
        if call.function is not None and call.first_call is None:
            continue  # a function's only inputs are its call's: none, nothing to say
        known = call.class_name if call.class_name in classes else None
        spec: dict[str, Any]
        if call.first_call is not None:
            spec = {
                "kind": "compile-call",
                "call": list(span(call.first_call)),
                "prelude": prelude_spec(call.prelude),
            }
        elif known and (
            method := next((m for m in EXAMPLE_METHODS if _has_method(classes[known], m, classes)), None)
        ):
            spec = {"kind": "example-inputs", "class": known, "method": method}
        elif known and (expr := infer_inputs(classes[known], {})):
            spec = {"kind": "inferred", "class": known, "expr": expr}
        else:
            spec = {"kind": "none", "class": known or call.name, "why": "forward"}
        both = known is not None and (known in exported or any(t.class_name == known for t in subjects))
        name = (
            f"{known}@compile"
            if both
            else known or _subject_name(call.class_name or call.function or call.name)
        )
        node = classes[known] if known and not both else call.node
        options: dict[str, Any] = {"fullgraph": call.fullgraph, "dynamic": call.dynamic}
        if call.switches:
            options["switches"] = call.switches
        if call.varying:
            options["varying"] = call.varying
        subject = Subject(name, None if both else known, node, spec, compile=options, function=call.function)
        subjects.append(subject)
    return subjects


def module_classes(tree: ast.Module, imports: dict[str, str]) -> dict[str, ast.ClassDef]:
    """Top-level classes deriving from torch.nn (directly or through each other).

    Real model code often derives from a library's module class
    (`PreTrainedModel`, `GradientCheckpointingLayer`, `from .module import Module`)
    that no static pass can resolve.  A class with such an imported base counts
    when it, or a class of the file deriving from it, defines `forward`.
    """
    top = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    imported = _imported_names(tree)
    classes: dict[str, ast.ClassDef] = {}
    changed = True
    while changed:  # a subclass may come before its base class in the file
        changed = False
        for node in top:
            if node.name in classes:
                continue
            for base in node.bases:
                full = resolve(dotted(base), imports) or ""
                if full.startswith(_MODULE_BASES) or dotted(base) in classes:
                    classes[node.name] = node
                    changed = True
                    break
    by_name = {node.name: node for node in top}
    with_forward = {node.name for node in top if _defines(node, "forward")}
    library_based = {
        node.name
        for node in top
        if node.name not in classes and any(_library_base(base, imports, imported) for base in node.bases)
    }
    # A library-based class is a module if a forward is defined in its subtree of the file.
    children: dict[str, list[str]] = {}
    for node in top:
        for base in node.bases:
            if isinstance(base, ast.Name) and base.id in by_name:
                children.setdefault(base.id, []).append(node.name)
    for name in library_based:
        seen, todo = set(), [name]
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            todo.extend(children.get(current, []))
        if seen & with_forward:
            classes[name] = by_name[name]
    changed = True
    while changed:  # and so is every class of the file built on one
        changed = False
        for node in top:
            if node.name not in classes and any(dotted(b) in classes for b in node.bases):
                classes[node.name] = node
                changed = True
    return {node.name: node for node in top if node.name in classes}


def _imported_names(tree: ast.Module) -> set[str]:
    """Names bound at the top level by imports (also under `if`/`try`, e.g. TYPE_CHECKING guards)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.asname or alias.name.split(".")[0] for alias in node.names)
    return names


def _library_base(base: ast.expr, imports: dict[str, str], imported: set[str]) -> bool:
    """An imported base from outside torch (torch's own non-nn bases are known not to be modules)."""
    name = dotted(base)
    if not name or name.partition(".")[0] not in imported:
        return False
    full = resolve(name, imports) or name
    return not full.startswith("torch.") and full != "torch"


def _defines(cls: ast.ClassDef, name: str) -> bool:
    return any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name for s in cls.body)


def _options(call: ExportCall) -> frozenset[str]:
    """How a call exports: which of `dynamic_shapes=` / `strict=` it passes."""
    return frozenset(k.arg for k in call.node.keywords if k.arg in ("dynamic_shapes", "strict"))


def _subject_name(built_by: str) -> str:
    """`AutoModel.from_pretrained` -> `AutoModel`; `timm.create_model` -> `create_model`."""
    parts = built_by.split(".")
    if len(parts) > 1 and parts[-1][:1].islower() and parts[-2][:1].isupper():
        return parts[-2]
    return parts[-1]


def _call_spec(call: ExportCall) -> dict[str, Any]:
    return {
        "kind": "export-call",
        "call": list(span(call.node)),
        "prelude": prelude_spec(call.prelude),
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


def _outside_classes(tree: ast.Module, classes: set[str]) -> set[str]:
    """The module classes of the file that code outside their definitions names."""
    todo: list[ast.AST] = [s for s in tree.body if not isinstance(s, ast.ClassDef)]
    named: set[str] = set()
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name) and node.id in classes:
            named.add(node.id)
        todo.extend(ast.iter_child_nodes(node))
    return named


def _close_uses(subjects: list[Subject]) -> None:
    """`uses` through other classes too: a Block built from Attention built from Rotary uses Rotary."""
    direct = {t.class_name: set(t.uses) for t in subjects if t.class_name}
    for subject in subjects:
        todo, seen = list(subject.uses), set(subject.uses)
        while todo:
            for name in direct.get(todo.pop(), ()):
                if name not in seen and name != subject.class_name:
                    seen.add(name)
                    todo.append(name)
        subject.uses = seen


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


def _why_no_inputs(cls: ast.ClassDef) -> str:
    """ "constructor" when `Cls()` cannot be built without arguments, else "forward"."""
    init = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    if init is None:
        return "forward"
    required = len(init.args.args) - 1 - len(init.args.defaults)
    return "constructor" if required > 0 or None in init.args.kw_defaults else "forward"
