"""The layers of server/exportlens, read from its imports (no module is imported here).

- Nothing outside `lsp/` imports the language server's layer: the check, the CLI, its reports,
  the settings and the documents are the same without pygls. One entry point aside: `cli.py`
  starts the server (`lsp/server.py`) for `exportlens serve`, and nothing else of `lsp/`.
- No import circle anywhere in the package, not even through the imports under
  `if TYPE_CHECKING:` (annotations); nor among the
  subpackages of `worker/`, which import one another only downwards: `host/` -> `job/` ->
  `parts/`, `capture/`, `lowering/` -> `core/` -> `wire/`.
- Outside `worker/`, ExportLens imports only `worker/wire/`: the rest runs in the user's
  interpreter, next to their torch.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

from tests.paths import ROOT

PACKAGE = ROOT / "server" / "exportlens"
ENTRY_POINTS = {"exportlens.cli": {"exportlens.lsp.server"}}  # module -> what of lsp/ it may import


def module_name(path: Path, package: Path) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(package: Path) -> dict[str, Path]:
    return {module_name(p, package): p for p in package.rglob("*.py")}


def _runtime_nodes(tree: ast.AST, annotations: bool = False) -> Iterator[ast.AST]:
    """Every node, less the bodies of `if TYPE_CHECKING:` (unless `annotations`)."""
    for node in ast.iter_child_nodes(tree):
        if not annotations and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from (n for stmt in node.orelse for n in [stmt, *_runtime_nodes(stmt)])
            continue
        yield node
        yield from _runtime_nodes(node, annotations)


def imports(name: str, path: Path, known: dict[str, Path], annotations: bool = False) -> set[str]:
    """The package's modules `name` imports at run time (at its top or inside a function); with
    `annotations`, also those it imports for its annotations only (`if TYPE_CHECKING:`)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8")), annotations):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                child = f"{base}.{alias.name}"
                found.add(child if child in known else base)
    return {m for m in found if m in known and m != name}


@functools.cache
def graph(package: Path = PACKAGE, annotations: bool = False) -> dict[str, set[str]]:
    """Module -> the modules of the same package it imports (`annotations`: for types too)."""
    known = modules(package)
    return {name: imports(name, path, known, annotations) for name, path in known.items()}


def test_nothing_outside_lsp_imports_the_language_server() -> None:
    reaching = {
        name: sorted(
            m for m in imported if m.startswith("exportlens.lsp") and m not in ENTRY_POINTS.get(name, ())
        )
        for name, imported in graph().items()
        if not name.startswith("exportlens.lsp")
    }
    assert {name: found for name, found in reaching.items() if found} == {}


def cycles(within: str, package: Path = PACKAGE, annotations: bool = False) -> list[list[str]]:
    """The import circles among the modules of the package `within` (strongly connected sets)."""
    drawn = graph(package, annotations).items()
    edges = {n: {m for m in deps if m.startswith(within + ".")} for n, deps in drawn}
    edges = {n: deps for n, deps in edges.items() if n.startswith(within + ".") or n == within}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for dep in edges.get(node, ()):
            if dep not in index:
                visit(dep)
                low[node] = min(low[node], low[dep])
            elif dep in stack:
                low[node] = min(low[node], index[dep])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_import_circle_in_the_package() -> None:
    """Anywhere in server/exportlens: among the root's modules and subpackages (a file's loading
    lives in reading.py, above `Document`; discovery keeps its result with the document through
    `Document.derived`) as within each subpackage; the annotations' imports too (lsp/'s scheduler
    takes its server as a `Host` protocol, publishing its client as a `DiagnosticsClient`)."""
    assert cycles("exportlens") == []
    assert cycles("exportlens", annotations=True) == []


WORKER = "exportlens.worker"
# Each subpackage of worker/ -> those it may import (tests/worker/test_child_imports_nothing.py
# checks the other half of the job's rule: the worker imports all of job/ and below before a fork).
WORKER_LAYERS = {
    "wire": set(),
    "core": {"wire"},
    "capture": {"core", "wire"},
    "parts": {"core", "wire"},
    "lowering": {"capture", "core", "wire"},
    "job": {"capture", "core", "lowering", "parts", "wire"},
    "host": {"core", "job", "wire"},
}


def subpackage(module: str) -> str | None:
    """`exportlens.worker.job.child` -> "job"; None outside worker/ and for worker/__init__."""
    parts = module.split(".")
    return parts[2] if module.startswith(WORKER + ".") and len(parts) > 2 else None


def worker_package_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Subpackage of worker/ -> the other subpackages its modules import."""
    found: dict[str, set[str]] = {}
    for name, imported in graph(package).items():
        if (own := subpackage(name)) is not None:
            found.setdefault(own, set()).update(
                {s for m in imported if (s := subpackage(m)) not in (None, own)}
            )
    return found


def test_outside_the_worker_only_its_wire_format_is_imported() -> None:
    reaching = {
        name: sorted(m for m in imported if m.startswith(WORKER) and subpackage(m) != "wire")
        for name, imported in graph().items()
        if not name.startswith(WORKER + ".")
    }
    assert {name: found for name, found in reaching.items() if found} == {}


def test_the_worker_is_its_role_subpackages() -> None:
    """Every module of worker/ is in one of the subpackages, and each imports only those below it
    (so no two import each other, directly or around a circle)."""
    loose = [name for name in graph() if name.startswith(WORKER + ".") and subpackage(name) is None]
    assert loose == []
    assert set(worker_package_graph()) == set(WORKER_LAYERS)
    beyond = {pkg: sorted(uses - WORKER_LAYERS[pkg]) for pkg, uses in worker_package_graph().items()}
    assert {pkg: found for pkg, found in beyond.items() if found} == {}


def test_the_worker_imports_before_a_fork_all_a_job_may_import() -> None:
    """ "A job's child imports nothing" as a rule of the layout: host/warmup.py's CHILD_PACKAGES are
    the job's subpackage and all it may import, but lowering/ (a job that asks for a lowering
    imports it); tests/worker/test_child_imports_nothing.py runs real jobs to see it hold."""
    warmup = ast.parse((PACKAGE / "worker" / "host" / "warmup.py").read_text(encoding="utf-8"))
    (preloaded,) = (
        ast.literal_eval(node.value)
        for node in warmup.body
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "CHILD_PACKAGES"
    )
    assert set(preloaded) == ({"job"} | WORKER_LAYERS["job"]) - {"lowering"}


def test_no_import_circle_among_the_worker_subpackages() -> None:
    """The allowed layers above, and what the code does, have no circle at package level."""
    for edges in (WORKER_LAYERS, worker_package_graph()):
        assert package_cycles(edges) == []


def package_cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The circles of a small graph: each node that reaches itself, with what it passes through."""

    def reach(start: str) -> set[str]:
        seen: set[str] = set()
        todo = list(edges.get(start, ()))
        while todo:
            node = todo.pop()
            if node not in seen:
                seen.add(node)
                todo.extend(edges.get(node, ()))
        return seen

    reached = {node: reach(node) for node in edges}
    return sorted(
        sorted(n for n in edges if n in reached[node] and node in reached[n])
        for node in edges
        if node in reached[node]
    )


def test_the_reader_sees_imports_and_circles(tmp_path: Path) -> None:
    """The rules above read what they claim to read: lazy imports count, annotations do not."""
    assert "exportlens.lsp.server" in graph()["exportlens.cli"]  # inside `main`
    assert "exportlens.check.run" in graph()["exportlens.check"]  # inside `__getattr__`
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    for name, text in {
        "__init__.py": "",
        "sub/__init__.py": "",
        "sub/a.py": "from . import b\n",
        "sub/b.py": "def f():\n    from .c import g\n",
        "sub/c.py": "from ..sub.a import x\n",
        "sub/d.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .e import y\n",
        "sub/e.py": "from .d import z\n",
    }.items():
        (package / name).write_text(text)
    assert cycles("pkg.sub", package) == [["pkg.sub.a", "pkg.sub.b", "pkg.sub.c"]]
    assert package_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]] * 3
    assert package_cycles(worker_package_graph(package)) == []  # no worker/ there
