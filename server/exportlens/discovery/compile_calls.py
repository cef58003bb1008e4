"""Find what a file compiles: `torch.compile(model)`, `torch.compile(Net())`, `model.compile()`,
a method under `@torch.compile`, a function (`torch.compile(step)`, `@torch.compile def step`).

Each compiled object bound to a top-level name is followed to its first top-level call
(`out = model(torch.randn(2, 8))`): the inputs a user's first batch gives it; in a loop (`for xb, yb
in loader:`), those of the loop's first pass (loops.py). Loading the file stops before the top-level
statement holding it (`first_compiled_call`), so loading never runs the compiled model.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..syntax import dotted, resolve
from .built_class import built_class, statements_before
from .compile_switches import compile_switches
from .compile_values import varying_arguments
from .loops import Step, path_to, read_nodes
from .training_step import training_step

COMPILE_FUNCTIONS = {"torch.compile", "torch.compiler.compile"}
# Top-level blocks whose statements do not run when the file loads: a first call there has a prelude.
_BLOCKS = (ast.If, ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass
class CompileCall:
    name: str  # the top-level name bound to the compiled object
    node: ast.AST  # the compile call (`torch.compile(...)` / `model.compile(...)`)
    class_name: str | None  # the class it compiles, when known
    fullgraph: bool  # `fullgraph=True`: a graph break is an error
    dynamic: bool | None  # `dynamic=`: True / False, None when not said
    first_call: ast.Call | None  # the first call of the compiled object at the top level
    # What runs before evaluating that call: the statements of its `if __name__ == "__main__":`
    # block before it, and the first pass of each loop holding it up to it (loops.py)
    prelude: list[Step] = field(default_factory=list)
    function: str | None = None  # a plain function compiled (`torch.compile(fn)`, `@torch.compile`)
    # what the script changes after the first call that torch guards (`model.eval()`, a dtype):
    # the compile check makes the same switches (compile_switches.py)
    switches: list[dict[str, object]] = field(default_factory=list)
    # the arguments the script gives a new value each call (a loop's timestep): the check varies them
    varying: list[dict[str, object]] = field(default_factory=list)
    # a compiled function's own `loss.backward()` / `optimizer.step()` (line, text): never run
    training: tuple[int, str] | None = None


def is_compile_call(node: ast.AST, imports: dict[str, str]) -> bool:
    return isinstance(node, ast.Call) and resolve(dotted(node.func), imports) in COMPILE_FUNCTIONS


def find_compile_calls(tree: ast.Module, imports: dict[str, str]) -> list[CompileCall]:
    found = (
        _compiled_objects(tree, imports)
        + _compiled_methods(tree, imports)
        + _compiled_functions(tree, imports)
    )
    for call in found:
        if call.function is not None:
            call.training = training_step(tree, call.function, imports)
        if call.first_call is not None and call.function is None:
            wrapped = call.node.args[:1] if isinstance(call.node, ast.Call) else []
            names = {call.name} | {a.id for a in wrapped if isinstance(a, ast.Name)}
            call.switches = compile_switches(tree, names, call.first_call, imports)
            call.varying = varying_arguments(tree, names)
    return found


def _compiled_functions(tree: ast.Module, imports: dict[str, str]) -> list[CompileCall]:
    """Top-level functions under `@torch.compile` (or `@torch.compile(...)`): fed their first call at
    the top level after the definition, else in a top-level `if` block (its prelude)."""
    found: list[CompileCall] = []
    for index, func in enumerate(tree.body):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        decorator = next((d for d in func.decorator_list if _is_compile(d, imports)), None)
        if decorator is None:
            continue
        options = decorator if isinstance(decorator, ast.Call) else ast.Call(decorator, [], [])
        fullgraph, dynamic = _flag(options, "fullgraph") is True, _flag(options, "dynamic")
        compiled = CompileCall(func.name, decorator, None, fullgraph, dynamic, None)
        compiled.function = func.name
        compiled.first_call, compiled.prelude = _first_call_after(tree.body[index + 1 :], func.name, imports)
        found.append(compiled)
    return found


def _first_call_after(
    body: list[ast.stmt], name: str, imports: dict[str, str]
) -> tuple[ast.Call | None, list[Step]]:
    """The first call of `name` in `body`; in a top-level `if` block or function (`main()`), with the
    statements before it there (its prelude); in a loop, with the loop's first pass up to it. A
    function counts only if the rest of the code calls it directly (`main()`): a helper that `main()`
    calls later runs after main's own first call, not where it is defined."""
    entries = _called_functions(body)
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and entries and stmt.name not in entries:
            continue
        if isinstance(stmt, _BLOCKS):
            if (call := _first_call(stmt.body, name)) is not None:
                prelude = path_to(stmt.body, call, imports)
                if not _reads_parameters(stmt, [*read_nodes(prelude), call]):
                    return call, prelude
            continue
        if (call := _first_call([stmt], name)) is not None:
            return call, path_to([stmt], call, imports)
        if any(isinstance(t, ast.Name) and t.id == name for t in getattr(stmt, "targets", [])):
            break  # rebound before it is called
    return None, []


def _called_functions(body: list[ast.stmt]) -> set[str]:
    """The functions `body`'s own statements call by name (outside function and class bodies)."""
    found: set[str] = set()
    stack: list[ast.AST] = [
        s for s in body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    ]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            found.add(node.func.id)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _compiled_methods(tree: ast.Module, imports: dict[str, str]) -> list[CompileCall]:
    """Classes with a method under `@torch.compile` (or `@torch.compile(...)`): compiled as modules,
    fed the first call of an instance the file builds at the top level (`model = Net()`, `model(x)`)."""
    found: list[CompileCall] = []
    for cls in (node for node in tree.body if isinstance(node, ast.ClassDef)):
        for method in (n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
            decorator = next((d for d in method.decorator_list if _is_compile(d, imports)), None)
            if decorator is None:
                continue
            options = decorator if isinstance(decorator, ast.Call) else ast.Call(decorator, [], [])
            first = _first_instance_call(tree, cls.name)
            fullgraph, dynamic = _flag(options, "fullgraph") is True, _flag(options, "dynamic")
            # loading ran the top level before the statement holding it: only that one's path is left
            holding = [s for s in tree.body if first is not None and _holds(s, {first.lineno})][:1]
            prelude = path_to(holding, first, imports) if first is not None else []
            found.append(CompileCall(cls.name, decorator, cls.name, fullgraph, dynamic, first, prelude))
            break
    return found


def _is_compile(decorator: ast.expr, imports: dict[str, str]) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return resolve(dotted(target), imports) in COMPILE_FUNCTIONS


def _first_instance_call(tree: ast.Module, class_name: str) -> ast.Call | None:
    """`model = Net(...)` at the top level, then the first call `model(...)` after it."""
    for index, stmt in enumerate(tree.body):
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Call)
            and dotted(stmt.value.func) == class_name
        ):
            return _first_call(tree.body[index + 1 :], stmt.targets[0].id)
    return None


def _compiled_objects(tree: ast.Module, imports: dict[str, str]) -> list[CompileCall]:
    """Bindings at the top level, and in the body of a top-level `if` (`if __name__ == "__main__":`)
    or function (`def main():`), whose statements before the first call are its prelude (they do
    not run when the file loads), as for an export call in `main()` (export_calls.py)."""
    found: list[CompileCall] = []
    blocks: list[tuple[list[ast.stmt], ast.stmt | None]] = [(tree.body, None)]
    blocks += [(s.body, s) for s in tree.body if isinstance(s, _BLOCKS)]
    for block, owner in blocks:
        nested = owner is not None
        for index, stmt in enumerate(block):
            bound = _compiled_binding(stmt, imports)
            if bound is None:
                continue
            name, call, module_expr = bound
            scopes = [tree.body, block] if nested else [tree.body]
            before = statements_before(scopes, call)
            class_name = built_class(module_expr, before, tree) if module_expr is not None else None
            fullgraph, dynamic = _flag(call, "fullgraph") is True, _flag(call, "dynamic")
            if nested:
                first = _first_call(block[index + 1 :], name)
                prelude = path_to(block, first, imports) if first is not None else []
                if first is None and isinstance(owner, ast.If):  # `if compile: model = torch.compile(model)`
                    first, prelude = _first_call_after(tree.body[tree.body.index(owner) + 1 :], name, imports)
            else:  # at the top level: called there, or in `if __name__ == "__main__":` after its prelude
                first, prelude = _first_call_after(block[index + 1 :], name, imports)
            compiled = CompileCall(name, call, class_name, fullgraph, dynamic, first, prelude)
            compiled.function = _function(module_expr, tree) if class_name is None else None
            if owner is not None and _reads_parameters(
                owner, [stmt, *read_nodes(compiled.prelude), *([first] if first else [])]
            ):
                continue  # `def train(model, loader)`: what it compiles and feeds is its caller's
            found.append(compiled)
    return found


def _reads_parameters(owner: ast.stmt, nodes: list[ast.AST]) -> bool:
    """Whether `nodes` read a parameter of the function `owner` (no value outside a call of it)."""
    if not isinstance(owner, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    a = owner.args
    params = {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs, *filter(None, [a.vararg, a.kwarg])]}
    return any(
        isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in params
        for node in nodes
        for n in ast.walk(node)
    )


def _function(expr: ast.expr | None, tree: ast.Module) -> str | None:
    """`torch.compile(step)` of a function the file defines at the top level: its name."""
    if not isinstance(expr, ast.Name):
        return None
    functions = {f.name for f in tree.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return expr.id if expr.id in functions else None


def first_compiled_call(tree: ast.Module, imports: dict[str, str]) -> ast.stmt | None:
    """The first top-level statement that calls a compiled object: where loading must stop. Its
    first call, and any call of its name at the top level after it is compiled: a first call in a
    function (`def estimate_loss():`) leaves the loop at the top level that calls it too, which
    loading must not run (a training loop)."""
    compiled = find_compile_calls(tree, imports)
    lines = {c.first_call.lineno for c in compiled if c.first_call is not None}
    run = [s for s in tree.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    after = {c.name: getattr(c.node, "lineno", 0) for c in compiled if c.name != c.class_name}
    for stmt in run:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id in after and node.lineno > after[node.func.id]:
                    lines.add(node.lineno)
    return next((s for s in run if s.lineno <= max(lines, default=0) and _holds(s, lines)), None)


def _holds(stmt: ast.stmt, lines: set[int]) -> bool:
    end = getattr(stmt, "end_lineno", stmt.lineno) or stmt.lineno
    return any(stmt.lineno <= line <= end for line in lines)


def _compiled_binding(
    stmt: ast.stmt, imports: dict[str, str]
) -> tuple[str, ast.Call, ast.expr | None] | None:
    """(name, compile call, what it compiles) of `name = torch.compile(x)` or `name.compile()`."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        value = stmt.value
        if is_compile_call(value, imports) and isinstance(value, ast.Call):
            first = (
                value.args[0]
                if value.args
                else next((k.value for k in value.keywords if k.arg == "model"), None)
            )
            return stmt.targets[0].id, value, first
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        func = stmt.value.func
        if isinstance(func, ast.Attribute) and func.attr == "compile" and isinstance(func.value, ast.Name):
            if resolve(dotted(func), imports) in COMPILE_FUNCTIONS:
                return None  # `torch.compile(...)` as a statement: its result is thrown away
            return func.value.id, stmt.value, func.value
    return None


def _first_call(body: list[ast.stmt], name: str) -> ast.Call | None:
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name:
                return node
        if any(isinstance(t, ast.Name) and t.id == name for t in getattr(stmt, "targets", [])):
            return None  # rebound before it is called
    return None


def _flag(call: ast.Call, keyword: str) -> bool | None:
    value = next((k.value for k in call.keywords if k.arg == keyword), None)
    if isinstance(value, ast.Constant) and isinstance(value.value, bool):
        return value.value
    return None
