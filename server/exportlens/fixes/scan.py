"""Static facts about a function and its statements that the rewrites need (no torch).

Which names a block reads and writes, which are defined before a line, what is
used after it, whether a block always returns, and the Python side effects a
`torch.cond` branch cannot carry.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

# Calls that return a view of (or the same storage as) their tensor: a cond branch must clone them.
VIEW_METHODS = {
    "view", "view_as", "reshape", "reshape_as", "t", "transpose", "permute", "squeeze", "unsqueeze",
    "expand", "expand_as", "narrow", "detach", "contiguous", "flatten", "unflatten", "select", "split",
    "chunk", "unbind", "movedim", "as_strided", "diagonal", "unfold", "type_as", "to", "float", "real",
}  # fmt: skip
ELEMENTWISE = {
    "abs", "neg", "tanh", "sigmoid", "relu", "exp", "expm1", "log", "log1p", "sin", "cos", "tan", "sqrt",
    "rsqrt", "square", "clamp", "clip", "floor", "ceil", "round", "sign", "erf", "gelu", "silu", "softplus",
    "leaky_relu", "elu", "mul", "add", "sub", "div", "pow", "maximum", "minimum", "reciprocal", "trunc",
    "atan", "asin", "acos", "sinh", "cosh", "hardtanh", "relu6", "logical_not", "float",
}  # fmt: skip
_PLAIN = (ast.Name, ast.Constant, ast.Load, ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop, ast.Attribute)
_SIDE_EFFECT_CALLS = {"print", "open", "input", "exec", "eval", "setattr", "delattr"}
_LOGGERS = {"log", "logger", "logging", "warnings", "time", "random", "os", "sys"}
_MUTATING_METHODS = {"append", "extend", "insert", "pop", "update", "add", "remove", "clear", "setdefault"}


def walk_local(nodes: list[ast.stmt] | ast.AST) -> Iterator[ast.AST]:
    """ast.walk over statements, not descending into nested functions, lambdas or classes."""
    stack: list[ast.AST] = list(nodes) if isinstance(nodes, list) else [nodes]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                stack.append(child)


def loads(nodes: list[ast.stmt] | ast.AST) -> list[str]:
    """Names read, in source order, each once."""
    found = [n for n in walk_local(nodes) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    found.sort(key=lambda n: (n.lineno, n.col_offset))
    return list(dict.fromkeys(n.id for n in found))


def stores(nodes: list[ast.stmt] | ast.AST) -> list[str]:
    found = [n for n in walk_local(nodes) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    found.sort(key=lambda n: (n.lineno, n.col_offset))
    return list(dict.fromkeys(n.id for n in found))


def params(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    a = func.args
    names = [p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]]
    names += [p.arg for p in (a.vararg, a.kwarg) if p is not None]
    return names


def defined_before(func: ast.FunctionDef | ast.AsyncFunctionDef, line: int) -> set[str]:
    """Parameters and locals bound on lines before 1-based `line`."""
    bound = set(params(func))
    for node in walk_local(func.body):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.lineno < line:
            bound.add(node.id)
    return bound


def used_after(func: ast.FunctionDef | ast.AsyncFunctionDef, end_line: int) -> set[str]:
    return {
        n.id
        for n in walk_local(func.body)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.lineno > end_line
    }


def always_returns(body: list[ast.stmt]) -> bool:
    if not body:
        return False
    last = body[-1]
    if isinstance(last, ast.Return):
        return True
    if isinstance(last, ast.If):
        return always_returns(last.body) and always_returns(last.orelse)
    return False


def has(nodes: list[ast.stmt], kinds: tuple[type[ast.AST], ...]) -> bool:
    return any(isinstance(n, kinds) for n in walk_local(nodes))


def _call_name(call: ast.Call) -> tuple[str | None, str]:
    """(object name, called name) of `obj.meth(...)` / `name(...)`."""
    func = call.func
    if isinstance(func, ast.Attribute):
        base = func.value
        return (base.id if isinstance(base, ast.Name) else None), func.attr
    return None, func.id if isinstance(func, ast.Name) else ""


def side_effect(nodes: list[ast.stmt], outer: set[str]) -> str | None:
    """Why these statements cannot become a torch.cond branch, or None.

    `outer`: names bound outside the block (mutating them leaks out of the branch).
    """
    for node in walk_local(nodes):
        line = f" (line {getattr(node, 'lineno', '?')})"
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return "it rebinds a global/nonlocal name" + line
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
            return "it yields/awaits" + line
        if isinstance(node, ast.Raise):
            return "it raises: a torch.cond branch cannot raise" + line
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            return "a branch holds another condition: rewrite that one first (nested torch.cond)" + line
        if isinstance(node, (ast.Assert, ast.Delete, ast.Import, ast.ImportFrom, ast.Try, ast.With)):
            return f"`{type(node).__name__.lower()}` inside a branch" + line
        if isinstance(node, (ast.Break, ast.Continue)) and not _inside_loop(nodes, node):
            return "`break`/`continue` would leave the branch function" + line
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            for sub in ast.walk(target):
                if isinstance(sub, ast.Attribute):
                    return f"it assigns `{ast.unparse(sub)}`: a Python side effect" + line
                if isinstance(sub, ast.Subscript):
                    return f"it writes into `{ast.unparse(sub)}` in place" + line
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id in outer:
            return f"`{node.target.id} {ast.unparse(node.op)}= …` updates an input in place" + line
        if isinstance(node, ast.Call):
            base, name = _call_name(node)
            if base is None and name in _SIDE_EFFECT_CALLS:
                return f"it calls `{name}()`: a Python side effect" + line
            if base in _LOGGERS:
                return f"it calls `{base}.{name}()`: a Python side effect" + line
            if base in outer and name.endswith("_") and not name.endswith("__"):
                return f"`{base}.{name}()` changes an input in place" + line
            if base in outer and name in _MUTATING_METHODS:
                return f"`{base}.{name}()` mutates a Python object from outside the branch" + line
    return None


def _inside_loop(nodes: list[ast.stmt], target: ast.AST) -> bool:
    loops = [n for n in walk_local(nodes) if isinstance(n, (ast.For, ast.While))]
    return any(c is target for n in loops for c in ast.walk(n))


def is_alias(expr: ast.expr) -> bool:
    """Could `expr` share storage with an operand (so a branch must return a clone)?"""
    if isinstance(expr, (ast.Name, ast.Subscript)):
        return True
    if isinstance(expr, ast.Attribute):
        return expr.attr in ("T", "mT", "H", "data")
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
        return expr.func.attr in VIEW_METHODS
    return False


def elementwise(expr: ast.expr) -> bool:
    """Only arithmetic and elementwise ops: `torch.where` of two such expressions equals the `if`."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Call):
            _, name = _call_name(node)
            if name not in ELEMENTWISE or any(isinstance(a, ast.Starred) for a in node.args):
                return False
        elif not isinstance(node, _PLAIN):
            return False
    return True
