"""Side-effect sites in what `forward` runs: statements export runs once and does not keep.

Walks the module class's `forward` and what it calls in the same file (its own
and its base classes' methods via `self.m(...)`, module-level functions by
name) and lists statements that export runs once and does not keep: print and
logging, mutation of globals and of `self` attributes, clocks, Python
randomness and `id()`.  Positions are CPython's (1-based lines, UTF-8 byte
columns).  Whether a site really matters is decided by `confirm.py` against
what the export did.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ...syntax import dotted, import_aliases, is_self, mentions, module_globals, resolve, span
from .classes import ClassInfo, class_info, lineage, tensor_factory
from .effects import CALLS as PROCESS_CALLS
from .effects import FILE_METHODS, PROCESS_MAPPINGS

LOG_METHODS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "log"}
MUTATORS = {
    "append",
    "extend",
    "insert",
    "add",
    "update",
    "setdefault",
    "pop",
    "clear",
    "remove",
    "appendleft",
    "discard",
    "popitem",
}
CLOCKS = {
    "time.time",
    "time.perf_counter",
    "time.monotonic",
    "time.time_ns",
    "time.process_time",
    "time.perf_counter_ns",
    "datetime.datetime.now",
    "datetime.now",
    "datetime.datetime.utcnow",
}
RANDOM_PREFIXES = ("random.", "numpy.random.", "np.random.", "uuid.uuid")
RANDOM_CALLS = {"os.getpid", "os.urandom"}
# Guards that already keep a statement out of the exported program.
EXPORT_GUARDS = {"is_compiling", "is_exporting", "is_dynamo_compiling", "is_scripting", "is_tracing"}


@dataclass
class Site:
    kind: (
        str  # print | logging | global-mutation | attribute-mutation | tensor-attribute | clock | random | id
    )
    name: str  # what is touched or called: "print", "CALLS", "counter", "time.time"
    text: str  # the statement or call as written
    line: int
    col: int
    end_line: int
    end_col: int
    function: str
    # Enclosing branches: (statements of the branch the site is in, of the other branch).
    branches: list[tuple[list[ast.stmt], list[ast.stmt]]] = field(default_factory=list)


def find_sites(tree: ast.Module, source: str, class_name: str) -> tuple[list[Site], ClassInfo]:
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    functions = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    globals_ = module_globals(tree)
    imports = import_aliases(tree)
    chain = lineage(classes, class_name)
    methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    info = ClassInfo(set(), {})
    for cls in reversed(chain):  # the subclass's methods win; every __init__ in the chain runs
        own = {n.name: n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        methods.update(own)
        init = class_info(own.get("__init__"))
        info.registered |= init.registered
        info.init_values.update(init.init_values)
    sites: list[Site] = []
    todo = [methods["forward"]] if "forward" in methods else []
    done: set[int] = set()
    while todo:
        func = todo.pop()
        if id(func) in done:
            continue
        done.add(id(func))
        walker = _Walker(source, func.name, globals_, imports, info)
        for stmt in func.body:
            walker.visit(stmt)
        sites.extend(walker.sites)
        todo.extend(methods[m] for m in walker.self_calls if m in methods and m != "__init__")
        todo.extend(functions[f] for f in walker.plain_calls if f in functions)
    return sites, info


class _Walker(ast.NodeVisitor):
    def __init__(
        self,
        source: str,
        function: str,
        globals_: dict[str, ast.expr | None],
        imports: dict[str, str],
        info: ClassInfo,
    ) -> None:
        self.source, self.function, self.globals, self.imports, self.info = (
            source,
            function,
            globals_,
            imports,
            info,
        )
        # Module-level names bound once to a literal: flags whose value decides a branch.
        self.constants = {k: v for k, v in globals_.items() if isinstance(v, ast.Constant)}
        self.sites: list[Site] = []
        self.self_calls: set[str] = set()
        self.plain_calls: set[str] = set()
        self.declared_global: set[str] = set()
        self.locals: set[str] = set()
        self.branches: list[tuple[list[ast.stmt], list[ast.stmt]]] = []

    def add(self, kind: str, name: str, node: ast.AST) -> None:
        text = ast.get_source_segment(self.source, node) or name
        self.sites.append(Site(kind, name, text, *span(node), self.function, list(self.branches)))

    def visit_If(self, node: ast.If) -> None:
        if mentions(node.test, EXPORT_GUARDS):
            return  # the user already keeps this out of the exported program
        self.visit(node.test)
        truth = self._truth(node.test)
        for inside, other in ((node.body, node.orelse), (node.orelse, node.body)):
            if truth is not None and truth != (inside is node.body):
                continue  # a constant flag (`if DEBUG:`, `if self.verbose:`) keeps this branch out
            self.branches.append((inside, other))
            for stmt in inside:
                self.visit(stmt)
            self.branches.pop()

    def visit_Global(self, node: ast.Global) -> None:
        self.declared_global.update(node.names)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Store):
            if node.id in self.declared_global:
                self.add("global-mutation", node.id, node)
            else:
                self.locals.add(node.id)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._store(node.target, node, augmented=True)
        self.visit(node.value)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._store(target, node, augmented=False)
        self.visit(node.value)

    def _store(self, target: ast.expr, stmt: ast.stmt, augmented: bool) -> None:
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Attribute):
            owner = target.value
            if is_self(owner.value) and owner.attr not in self.info.registered:
                # `self.cache_k[:b, s:e] = xk` / `self.grid[i] = ...`: an item of plain state
                tensor = tensor_factory(self.info.init_values.get(owner.attr))
                self.add("tensor-attribute-inplace" if tensor else "attribute-mutation", owner.attr, stmt)
                return
            if self._resolve(dotted(owner) or "") in PROCESS_MAPPINGS:
                self.add("process-state", dotted(owner) or "", stmt)
                return
        if isinstance(target, ast.Attribute) and is_self(target.value):
            name = target.attr
            if name in self.info.registered:
                return  # updating a registered buffer is kept in the graph
            kind = "tensor-attribute"
            init = self.info.init_values.get(name)
            if isinstance(init, ast.Constant) or (augmented and init is None) or _plain_value(stmt):
                kind = "attribute-mutation"
            self.add(kind, name, stmt)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            if self._is_global(target.value.id):
                self.add("global-mutation", target.value.id, stmt)
        elif isinstance(target, ast.Name) and target.id in self.declared_global:
            self.add("global-mutation", target.id, stmt)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._store(element, stmt, augmented)
        else:
            self.visit(target)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = dotted(func)
        full = self._resolve(name) if name else ""
        if isinstance(func, ast.Attribute) and is_self(func.value):
            self.self_calls.add(func.attr)
        elif isinstance(func, ast.Name):
            self.plain_calls.add(func.id)
        if full == "print" or (full == "builtins.print"):
            self.add("print", "print", node)
        elif full in PROCESS_CALLS:
            self.add(PROCESS_CALLS[full], full, node)
        elif isinstance(func, ast.Attribute) and func.attr in FILE_METHODS:
            self.add("file-io", func.attr, node)
        elif (
            isinstance(func, ast.Attribute)
            and func.attr.endswith("_")
            and isinstance(func.value, ast.Attribute)
            and is_self(func.value.value)
            and func.value.attr not in self.info.registered
            and tensor_factory(self.info.init_values.get(func.value.attr))
        ):
            self.add("tensor-attribute-inplace", func.value.attr, node)  # `self.cache.copy_(...)`
        elif full == "id":
            self.add("id", "id", node)
        elif full in CLOCKS:
            self.add("clock", full, node)
        elif full.startswith(RANDOM_PREFIXES) or full in RANDOM_CALLS:
            self.add("random", full, node)
        elif isinstance(func, ast.Attribute) and func.attr in LOG_METHODS and _is_logger(func.value, full):
            self.add("logging", name or func.attr, node)
        elif (
            isinstance(func, ast.Attribute)
            and func.attr in MUTATORS
            and isinstance(func.value, ast.Name)
            and self._is_global(func.value.id)
        ):
            self.add("global-mutation", func.value.id, node)
        self.generic_visit(node)

    def _truth(self, test: ast.expr) -> bool | None:
        """The value of `FLAG`, `self.flag` or `not ...` when a literal fixes it; else None."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self._truth(test.operand)
            return None if inner is None else not inner
        value: ast.expr | None = None
        if isinstance(test, ast.Name) and test.id not in self.locals:
            value = self.constants.get(test.id)
        elif isinstance(test, ast.Attribute) and is_self(test.value):
            value = self.info.init_values.get(test.attr)
        return bool(value.value) if isinstance(value, ast.Constant) else None

    def _is_global(self, name: str) -> bool:
        return name in self.declared_global or (name in self.globals and name not in self.locals)

    def _resolve(self, name: str) -> str:
        return resolve(name, self.imports) or ""


def _plain_value(stmt: ast.stmt) -> bool:
    value = getattr(stmt, "value", None)
    return isinstance(value, ast.Constant) or (
        isinstance(value, (ast.List, ast.Dict, ast.Set, ast.Tuple))
        and all(
            isinstance(e, ast.Constant) for e in ast.walk(value) if isinstance(e, ast.expr) and e is not value
        )
    )


def _is_logger(value: ast.expr, full: str) -> bool:
    head = full.partition(".")[0]
    if head == "logging":
        return True
    name = value.attr if isinstance(value, ast.Attribute) else getattr(value, "id", "")
    return "log" in name.lower()
