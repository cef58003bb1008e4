"""In a notebook that trains before it exports: the statements of the skipped cells that build
what the export cell reads (the model, its inputs), run beside the definitions (runs.py).

`model = Net(...).to(device)` sits in the training cell, above `for epoch in ...:`; the export
cell reads `model`. Such a statement is run when it is a plain assignment whose every call is one
a check may make: a class the notebook defines (its `__init__` builds the model), a torch tensor
factory, or a tensor / module method that moves or casts (`.to()`, `.eval()`, `.cpu()`). Never a
loop, a `with`, a bare call (`train(model)`, `opt.step()`), nor a call of anything else (a
dataset, a DataLoader, `torch.load`, a function of the notebook's, which may train or download):
what it binds stays unbound, and the export cell's finding says so.
"""

from __future__ import annotations

import ast

# torch's functions that make tensors or devices from nothing: what builds example inputs
FACTORIES = frozenset(
    {"randn", "rand", "randint", "zeros", "ones", "full", "empty", "arange", "linspace", "tensor",
     "randn_like", "rand_like", "zeros_like", "ones_like", "manual_seed", "device", "is_available"}
)  # fmt: skip
# methods that move, cast or switch a module or tensor, and read its size
METHODS = frozenset(
    {"to", "eval", "cpu", "cuda", "float", "half", "double", "bfloat16", "contiguous", "size",
     "unsqueeze", "view", "reshape", "requires_grad_"}
)  # fmt: skip


def builders(export: list[ast.stmt], kept: list[ast.stmt], skipped: list[ast.stmt]) -> list[ast.stmt]:
    """The skipped statements before the export cell that bind what it reads, and what those
    read in turn, that `buildable` allows: in source order."""
    classes = {s.name for s in kept if isinstance(s, ast.ClassDef)}
    bound_kept = set().union(*(bound(s) for s in kept)) if kept else set()
    start = min((s.lineno for s in export), default=0)
    before = [s for s in skipped if (s.end_lineno or s.lineno) < start]
    wanted = set().union(*(read(s) for s in export)) - bound_kept if export else set()
    chosen: list[ast.stmt] = []
    for stmt in reversed(before):  # the last binding before the export cell is the one it reads
        names = bound(stmt)
        if names & wanted and buildable(stmt, classes):
            chosen.append(stmt)
            wanted = (wanted - names) | (read(stmt) - bound_kept)
    return sorted(chosen, key=lambda s: s.lineno)


def buildable(stmt: ast.stmt, classes: set[str]) -> bool:
    if not isinstance(stmt, ast.Assign | ast.AnnAssign) or stmt.value is None:
        return False
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    names = [n for t in targets for n in (t.elts if isinstance(t, ast.Tuple) else [t])]
    if not all(isinstance(n, ast.Name) for n in names):
        return False
    return all(_allowed(call, classes) for call in ast.walk(stmt.value) if isinstance(call, ast.Call))


def _allowed(call: ast.Call, classes: set[str]) -> bool:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in classes
    if isinstance(func, ast.Attribute):
        if func.attr in METHODS:
            return True
        owner = func.value
        # torch.randn(...), torch.cuda.is_available()
        while isinstance(owner, ast.Attribute):
            owner = owner.value
        return isinstance(owner, ast.Name) and owner.id == "torch" and func.attr in FACTORIES
    return False


def read(stmt: ast.stmt) -> set[str]:
    return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def bound(stmt: ast.stmt) -> set[str]:
    """The module-level names a statement binds (not those of the functions and classes it defines)."""
    names: set[str] = set()
    todo: list[ast.AST] = [stmt]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
            continue
        elif isinstance(node, ast.Lambda):
            continue
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).partition(".")[0])
        todo.extend(ast.iter_child_nodes(node))
    return names
