"""Which class the object an export call exports is an instance of, read from the file alone.

Real scripts rarely pass `Net()` itself: `model = Net().to(device)`, `model = model.cuda()`,
`model = build_model(args)`, `Model.from_name("b0")` (a classmethod returning `cls(...)`),
`wrapper.module`. What the file says is followed here: methods that return the module
(`.to`, `.eval`, ...), the name's last assignment before the call (at the top level too, and a
name reassigned from itself), factory functions and class/static methods of the file whose every
`return` builds the same class, and the attribute a wrapper of the file (or `DataParallel`) keeps
its constructor's argument in. What only running shows (a factory in a library or behind a
config) the export job reports itself (worker/parts/module_tree.py).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from ..syntax import dotted

# Calls on a module that return the module (or a copy of it): peeled to find its class.
MODULE_METHODS = {
    "apply",
    "eval",
    "train",
    "to",
    "cpu",
    "cuda",
    "float",
    "double",
    "half",
    "bfloat16",
    "type",
    "requires_grad_",
    "share_memory",
}
_TORCH_WRAPPERS = {"DataParallel", "DistributedDataParallel"}  # `.module` is what they were given
_DEPTH = 16  # steps through names, factories and wrappers: plenty for real code, bounded
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)

Built = tuple[str, ast.Call]  # the dotted name of what builds the object, and the call that does


def built_class(expr: ast.AST | None, before: Sequence[ast.stmt], tree: ast.Module) -> str | None:
    """The dotted name of the class that builds `expr`'s value or, when that cannot be followed
    (a library's factory), of the callable that returns it; None: unknown. `before`: the
    statements that run before `expr`, in order (statements_before)."""
    built = _File.of(tree).building(expr, list(before), {}, 0)
    return built[0] if built else None


def statements_before(scopes: Sequence[Sequence[ast.stmt]], node: ast.AST) -> list[ast.stmt]:
    """The statements of `scopes` (outermost first: the module, then the enclosing function) that
    start before `node`; nested blocks flattened, function and class bodies left out."""
    line = getattr(node, "lineno", 0)
    return [s for scope in scopes for s in _flat(scope) if s.lineno < line]


def _flat(body: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    for stmt in body:
        yield stmt
        if isinstance(stmt, (*_FUNCTIONS, ast.ClassDef)):
            continue
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, name, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                yield from _flat(inner)
        for handler in getattr(stmt, "handlers", []) or []:
            yield from _flat(handler.body)


def _last_assignment(name: str, before: list[ast.stmt]) -> tuple[int, ast.expr | None]:
    """(its index in `before`, the value) of the last `name = ...`; (0, None) when none."""
    for index in range(len(before) - 1, -1, -1):
        stmt = before[index]
        if isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in stmt.targets
        ):
            return index, stmt.value
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == name:
            return index, stmt.value
    return 0, None


def _assignments(name: str, before: list[ast.stmt]) -> list[tuple[int, ast.expr | None]]:
    """The values `name` may hold: its last assignment and, when that one is in the `else` of an
    `if` whose body assigns it too, the body's last one (`if args.transformer: model = A() else:
    model = B()` builds an A or a B)."""
    index, value = _last_assignment(name, before)
    found = [(index, value)]
    if value is None:
        return found
    assigned = before[index]
    for branching in reversed(before[:index]):
        if isinstance(branching, ast.If) and any(s is assigned for s in _flat(branching.orelse)):
            body = {id(s) for s in _flat(branching.body)}
            branch = [s for s in before[:index] if id(s) in body]
            other, value = _last_assignment(name, branch)
            if value is not None:
                found.append((before.index(branch[other]), value))
            break
    return found


@dataclass
class _File:
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]
    classes: dict[str, ast.ClassDef]
    active: set[int] = field(default_factory=set)  # factories being followed: recursion stops

    @staticmethod
    def of(tree: ast.Module) -> _File:
        functions = {s.name: s for s in tree.body if isinstance(s, _FUNCTIONS)}
        return _File(functions, {s.name: s for s in tree.body if isinstance(s, ast.ClassDef)})

    def building(
        self, expr: ast.AST | None, before: list[ast.stmt], aliases: dict[str, str], depth: int
    ) -> Built | None:
        """What builds `expr`'s value; `aliases`: `cls` in a classmethod -> its class."""
        while expr is not None and depth < _DEPTH:
            depth += 1
            if isinstance(expr, ast.Call):
                func = expr.func
                if isinstance(func, ast.Attribute) and func.attr in MODULE_METHODS:
                    expr = func.value
                    continue
                name = _renamed(dotted(func), aliases)
                if name is None:
                    return None
                return self._returned(name, depth) or (name, expr)
            if isinstance(expr, ast.Name):
                built = [
                    self.building(v, before[:i], aliases, depth) for i, v in _assignments(expr.id, before)
                ]
                return built[0] if len({b[0] if b else None for b in built}) == 1 else None
            if isinstance(expr, ast.Attribute):
                return self._held(expr, before, aliases, depth)
            return None
        return None

    def _returned(self, name: str, depth: int) -> Built | None:
        """What a factory of the file (a function, a class's class/static method) returns, when
        every `return` of it builds the same class."""
        found = self._factory(name)
        if found is None or id(found[0]) in self.active:
            return None
        function, aliases = found
        self.active.add(id(function))
        try:
            returns = [
                node
                for node in _own_nodes(function)
                if isinstance(node, ast.Return) and node.value is not None
            ]
            built = [
                self.building(r.value, statements_before([function.body], r), aliases, depth + 1)
                for r in returns
            ]
        finally:
            self.active.discard(id(function))
        names = {b[0] for b in built if b is not None}
        if len(names) != 1 or None in built:
            return None
        return next(b for b in built if b is not None)

    def _factory(self, name: str) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, dict[str, str]] | None:
        if name in self.functions:
            return self.functions[name], {}
        owner, _, method = name.rpartition(".")
        function = self._method(owner, method, 0)
        if function is None:
            return None
        kinds = {dotted(d) for d in function.decorator_list}
        if "classmethod" in kinds and function.args.args:
            return function, {function.args.args[0].arg: owner}  # `cls(...)` builds `owner`
        return (function, {}) if "staticmethod" in kinds else None

    def _method(self, owner: str, name: str, depth: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        cls = self.classes.get(owner)
        if cls is None or depth > _DEPTH:
            return None
        own = next((s for s in cls.body if isinstance(s, _FUNCTIONS) and s.name == name), None)
        if own is not None:
            return own
        bases = (dotted(b) for b in cls.bases)
        return next((m for b in bases if b and (m := self._method(b, name, depth + 1))), None)

    def _held(
        self, expr: ast.Attribute, before: list[ast.stmt], aliases: dict[str, str], depth: int
    ) -> Built | None:
        """`wrapper.module`: the argument the wrapper's constructor stored in that attribute."""
        holder = self.building(expr.value, before, aliases, depth + 1)
        if holder is None:
            return None
        name, call = holder
        if name.rpartition(".")[2] in _TORCH_WRAPPERS and expr.attr == "module" and call.args:
            return self.building(call.args[0], before, aliases, depth + 1)
        init = self._method(name, "__init__", 0)
        argument = _stored_argument(init, expr.attr, call) if init else None
        return self.building(argument, before, aliases, depth + 1) if argument is not None else None


def _renamed(name: str | None, aliases: dict[str, str]) -> str | None:
    if name is None:
        return None
    head, dot, rest = name.partition(".")
    return aliases.get(head, head) + dot + rest


def _own_nodes(function: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function's body, those of functions and classes nested in it left out."""
    todo = list(ast.iter_child_nodes(function))
    while todo:
        node = todo.pop()
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef, ast.Lambda)):
            continue
        yield node
        todo.extend(ast.iter_child_nodes(node))


def _stored_argument(
    init: ast.FunctionDef | ast.AsyncFunctionDef, attr: str, call: ast.Call
) -> ast.expr | None:
    """The argument of `call` that `__init__` stores as `self.<attr> = <parameter>`."""
    params = [a.arg for a in init.args.args[1:]]
    for node in _own_nodes(init):
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Name)):
            continue
        stored = any(
            isinstance(t, ast.Attribute) and t.attr == attr and dotted(t.value) == "self"
            for t in node.targets
        )
        if not stored or node.value.id not in params:
            continue
        index = params.index(node.value.id)
        by_keyword = next((k.value for k in call.keywords if k.arg == node.value.id), None)
        return by_keyword or (call.args[index] if index < len(call.args) else None)
    return None
