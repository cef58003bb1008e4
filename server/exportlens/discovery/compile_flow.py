"""What a script does to its compiled model, in the order it runs (issue 45 point 1): each state it
sets (`model.eval()`, `model.double()`) and each call of it with the contexts around that call
(`with torch.no_grad():`, `with torch.autocast(...)`, a `@torch.no_grad()` function). The model is
followed through other names: an alias (`net = model`), the module a compile wraps, and a parameter
of a function of the file the script passes it to (`def test(model, loader): model.eval()` called
as `test(model, loader)`), whose statements run at the call. compile_switches.py reads these events.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..syntax import dotted, resolve

_DTYPE_METHODS = {"double": "float64", "half": "float16", "bfloat16": "bfloat16", "float": "float32"}
_DTYPES = {
    "float64": "float64",
    "double": "float64",
    "float16": "float16",
    "half": "float16",
    "bfloat16": "bfloat16",
    "float32": "float32",
    "float": "float32",
}
_AUTOCAST = {"torch.autocast", "torch.amp.autocast", "torch.cpu.amp.autocast", "torch.cuda.amp.autocast"}
# Grad mode off: dynamo guards it as global state, like autocast.
_NO_GRAD = {"torch.no_grad": "no_grad()", "torch.inference_mode": "inference_mode()"}
_Def = ast.FunctionDef | ast.AsyncFunctionDef
_DEPTH = 4  # functions followed into functions: a script's `main()` → `evaluate()` → `run()`


@dataclass
class Event:
    """A state set (`kind` "mode"/"dtype", `value`) or, with `call`, a call of the compiled model:
    `value` is its inputs' dtype when it casts them there (`model(x.half())`), and `contexts` the
    (kind, value, line) of each context around it, outermost first."""

    kind: str
    value: str
    line: int
    call: ast.Call | None = None
    contexts: list[tuple[str, str, int]] = field(default_factory=list)


def events(tree: ast.Module, body: list[ast.stmt], names: set[str], imports: dict[str, str]) -> list[Event]:
    """The events of `body` (the block holding the first call) in the order it runs."""
    functions = {f.name: f for f in tree.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    # the model's names are globals, seen by the functions it calls, unless a function binds them
    stored = {
        n.id for s in body for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    walk = _Walk(functions, imports, top=body is tree.body or not names & stored)
    walk.block(body, set(names), [], 0)
    return walk.found


class _Walk:
    def __init__(self, functions: dict[str, _Def], imports: dict[str, str], top: bool) -> None:
        self.functions, self.imports = functions, imports
        self.global_names: set[str] = set()  # the model's names at the top level, seen by functions
        self.top = top  # the model's names in the block are globals
        self.found: list[Event] = []
        self.stack: list[str] = []

    def block(
        self, body: list[ast.stmt], names: set[str], ctx: list[tuple[str, str, int]], depth: int
    ) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue  # runs when called, not here
            if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Name) and stmt.value.id in names:
                names.update(t.id for t in stmt.targets if isinstance(t, ast.Name))  # `net = model`
            inner = ctx
            if isinstance(stmt, (ast.With, ast.AsyncWith)):
                for item in stmt.items:
                    self.expr(item.context_expr, names, ctx, depth)
                    inner = inner + self.contexts([item.context_expr], stmt.lineno)
            for _name, value in ast.iter_fields(stmt):
                values = value if isinstance(value, list) else [value]
                for child in values:
                    if isinstance(child, ast.stmt):
                        self.block([child], names, inner, depth)
                    elif isinstance(child, ast.ExceptHandler):
                        self.block(child.body, names, inner, depth)
                    elif isinstance(child, ast.expr) and not isinstance(stmt, (ast.With, ast.AsyncWith)):
                        self.expr(child, names, ctx, depth)

    def contexts(self, exprs: list[ast.expr], line: int | None) -> list[tuple[str, str, int]]:
        """The guarded contexts among `with` items (on the `with` line) or decorators (on their own),
        as (kind, value, line)."""
        found: list[tuple[str, str, int]] = []
        for expr in exprs:
            at = line or expr.lineno
            target = expr.func if isinstance(expr, ast.Call) else expr
            full = resolve(dotted(target), self.imports)
            call = expr if isinstance(expr, ast.Call) else ast.Call(expr, [], [])
            if full in _AUTOCAST:
                said = next((k.value for k in call.keywords if k.arg == "dtype"), None)
                said = said or (call.args[1] if len(call.args) > 1 else None)
                found.append(("autocast", _dtype(said) or "", at))
            elif full in _NO_GRAD and not _is_false(call, "mode"):
                found.append(("grad", _NO_GRAD[full], at))
            elif full == "torch.set_grad_enabled" and call.args and _is_false_value(call.args[0]):
                found.append(("grad", "set_grad_enabled(False)", at))
        return found

    def expr(self, node: ast.expr, names: set[str], ctx: list[tuple[str, str, int]], depth: int) -> None:
        calls = [n for n in _walk_expr(node) if isinstance(n, ast.Call)]
        for call in sorted(calls, key=lambda n: (n.lineno, n.col_offset)):
            self.call(call, names, ctx, depth)

    def call(self, node: ast.Call, names: set[str], ctx: list[tuple[str, str, int]], depth: int) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id in names:  # a call; `model(x.double())`: its inputs' dtype
            dtype = next((d for a in ast.walk(node) if a is not node and (d := _cast(a))), "")
            self.found.append(Event("call", dtype, node.lineno, node, list(ctx)))
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in names:
            if func.attr == "eval" and not node.args:
                self.found.append(Event("mode", "eval", node.lineno))
            elif func.attr == "train":
                flag = (
                    node.args[0]
                    if node.args
                    else next((k.value for k in node.keywords if k.arg == "mode"), None)
                )
                self.found.append(Event("mode", "eval" if _is_false_value(flag) else "train", node.lineno))
            elif cast := _cast(node):
                self.found.append(Event("dtype", cast, node.lineno))
        elif isinstance(func, ast.Name) and func.id in self.functions:
            self.enter(self.functions[func.id], node, names, ctx, depth)

    def enter(
        self, function: _Def, node: ast.Call, names: set[str], ctx: list[tuple[str, str, int]], depth: int
    ) -> None:
        """A call of a function of the file: its body runs with the parameters the model is passed to
        named as it, and the globals it does not shadow."""
        if depth >= _DEPTH or function.name in self.stack:
            return
        a = function.args
        positional = [p.arg for p in [*a.posonlyargs, *a.args]]
        bound = {positional[i] for i, v in enumerate(node.args[: len(positional)]) if _named(v, names)}
        bound |= {k.arg for k in node.keywords if k.arg and _named(k.value, names)}
        params = {*positional, *(p.arg for p in a.kwonlyargs)}
        local = {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        if depth == 0 and self.top:
            self.global_names = set(names)
        inner = bound | (self.global_names & names) - params - local
        if not inner:
            return
        self.stack.append(function.name)
        decorated = self.contexts(function.decorator_list, None)
        self.block(function.body, inner, ctx + decorated, depth + 1)
        self.stack.pop()


def _walk_expr(node: ast.AST) -> list[ast.AST]:
    """The nodes of an expression, not those of a lambda in it (it runs when called)."""
    out: list[ast.AST] = [node]
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, ast.Lambda):
            out += _walk_expr(child)
    return out


def _named(value: ast.expr, names: set[str]) -> bool:
    return isinstance(value, ast.Name) and value.id in names


def _is_false_value(value: ast.expr | None) -> bool:
    return isinstance(value, ast.Constant) and value.value is False


def _is_false(call: ast.Call, keyword: str) -> bool:
    """`torch.inference_mode(False)` / `mode=False`: grad mode stays on."""
    flag = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == keyword), None)
    return _is_false_value(flag)


def _cast(node: ast.AST) -> str | None:
    """`t.double()` / `t.half()` / `t.to(torch.float16)` / `t.to(dtype=torch.bfloat16)`: the dtype."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    if node.func.attr in _DTYPE_METHODS and not node.args and not node.keywords:
        return _DTYPE_METHODS[node.func.attr]
    if node.func.attr == "to":
        values = [*node.args, *(k.value for k in node.keywords if k.arg == "dtype")]
        return next((d for v in values if (d := _dtype(v))), None)
    return None


def _dtype(value: ast.expr | None) -> str | None:
    """`torch.float16` -> "float16"; None for anything else."""
    if isinstance(value, ast.Attribute) and dotted(value.value) == "torch":
        return _DTYPES.get(value.attr)
    return None
