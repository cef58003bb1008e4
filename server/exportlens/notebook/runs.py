"""What of a notebook a check runs, decided on the one parse of its joined code cells.

A notebook is not a script: its cells load data, train, write checkpoints, plot. A check runs
only what defines the model: from every code cell, the imports, `def` and `class` statements and
assignments of constants; the cell with the export call runs whole, as a script would (its
statements before the call build the model and its inputs), and so do the plain assignments of the
other cells that build what it reads (`model = Net().to(device)` above a training loop:
building.py). Every other statement becomes blank lines, so the worker runs a text with the
notebook's line numbers and every line it reports is in its cell. A name the export cell reads
that only a skipped statement binds is said, never run.
"""

from __future__ import annotations

import ast
import builtins
import functools
from dataclasses import dataclass, field

from ..discovery import discovery_of
from ..document import Document
from ..findings import Finding
from ..syntax import contains_export_call, exporter_instances, import_aliases
from ..textpos import SourceText
from .building import bound, builders
from .cells import Cell, Notebook

DEFINITIONS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
SKIPPED_NAME = "notebook-skipped-name"


RUNS = "notebook runs"  # its key among the document's derived values (Document.derived)


@dataclass
class Runs:
    text: str  # the joined text with the skipped statements blanked: what the worker runs
    tree: ast.Module | None = None  # `text`'s tree (its statements from the joined text's parse)
    skipped: list[ast.stmt] = field(default_factory=list)
    # read by the export cell, bound only by skipped code
    missing: list[ast.Name] = field(default_factory=list)


def decide(notebook: Notebook) -> Runs:
    try:
        tree = ast.parse(notebook.text)
    except (SyntaxError, ValueError):
        return Runs(notebook.text)  # runs nothing: Python refuses the text, its syntax error is said
    imports = import_aliases(tree) | exporter_instances(tree, import_aliases(tree))
    export_cells = {
        id(span)
        for stmt in tree.body
        if contains_export_call(stmt, imports) and (span := notebook.span_of_line(stmt.lineno - 1))
    }
    constants: set[str] = set()
    kept: list[ast.stmt] = []
    skipped: list[ast.stmt] = []
    for stmt in tree.body:
        span = notebook.span_of_line(stmt.lineno - 1)
        if (span is not None and id(span) in export_cells) or _defines(stmt, constants):
            kept.append(stmt)
        else:
            skipped.append(stmt)
    # what the export cell reads that the skipped cells build (the model, its inputs): building.py
    exporting = [s for s in kept if (sp := notebook.span_of_line(s.lineno - 1)) and id(sp) in export_cells]
    built = builders(exporting, kept, skipped)
    kept = sorted([*kept, *built], key=lambda s: s.lineno)
    skipped = [s for s in skipped if s not in built]
    lines = notebook.text.split("\n")
    blanked: set[int] = set()
    for stmt in skipped:
        for line in range(_first_line(stmt) - 1, stmt.end_lineno or stmt.lineno):
            lines[line] = ""
            blanked.add(line)
    # A kept statement on a skipped one's line (`N = 2; train()`) went with the line: it does not run.
    gone = [s for s in kept if not blanked.isdisjoint(range(_first_line(s) - 1, s.end_lineno or s.lineno))]
    kept, skipped = [s for s in kept if s not in gone], skipped + gone
    in_export = [s for s in kept if (sp := notebook.span_of_line(s.lineno - 1)) and id(sp) in export_cells]
    tree = ast.Module(body=kept, type_ignores=[])
    return Runs("\n".join(lines), tree, skipped, _missing(in_export, kept, skipped))


def _defines(stmt: ast.stmt, constants: set[str]) -> bool:
    """An import, a definition, or constants bound to plain names (`HIDDEN = 64`, `N = 2 * HIDDEN`)."""
    if isinstance(stmt, DEFINITIONS):
        return True
    if isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        names = [n for t in targets for n in (t.elts if isinstance(t, ast.Tuple) else [t])]
        if all(isinstance(n, ast.Name) for n in names) and _constant(stmt.value, constants):
            constants.update(n.id for n in names if isinstance(n, ast.Name))
            return True
    return False


def _constant(node: ast.expr, constants: set[str]) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        return node.id in constants
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return all(_constant(e, constants) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _constant(k, constants) for k in node.keys) and all(
            _constant(v, constants) for v in node.values
        )
    if isinstance(node, ast.UnaryOp):
        return _constant(node.operand, constants)
    if isinstance(node, ast.BinOp):
        return _constant(node.left, constants) and _constant(node.right, constants)
    return False


def _first_line(stmt: ast.stmt) -> int:
    decorators: list[ast.expr] = getattr(stmt, "decorator_list", None) or []
    return min([stmt.lineno, *(d.lineno for d in decorators)])


def _missing(export: list[ast.stmt], kept: list[ast.stmt], skipped: list[ast.stmt]) -> list[ast.Name]:
    bound_kept = set().union(*(bound(s) for s in kept)) if kept else set()
    bound_skipped = set().union(*(bound(s) for s in skipped)) if skipped else set()
    only_skipped = bound_skipped - bound_kept - set(dir(builtins))
    first: dict[str, ast.Name] = {}
    for stmt in export:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in only_skipped:
                known = first.get(node.id)
                if known is None or (node.lineno, node.col_offset) < (known.lineno, known.col_offset):
                    first[node.id] = node
    return sorted(first.values(), key=lambda n: (n.lineno, n.col_offset))


def _exported_from(doc: Document, notebook: Notebook, line: int) -> str | None:
    span = notebook.span_of_line(line)
    calls = [(t, t.call) for t in discovery_of(doc).subjects if t.call is not None]
    here = [t for t, call in calls if span is not None and notebook.span_of_line(call.lineno - 1) is span]
    return next((t.name for t in [*here, *(t for t, _ in calls)]), None)


@functools.lru_cache(maxsize=8)
def _source(text: str) -> SourceText:
    return SourceText(text)


def skipped_name_findings(doc: Document, notebook: Notebook) -> list[Finding]:
    """On each name the export cell reads that only a skipped statement binds: what to do. The
    finding is the module's its cell exports (a check of that module says it)."""
    text = _source(notebook.text)
    return [
        Finding(
            path=doc.path,
            module=_exported_from(doc, notebook, n.lineno - 1),
            range=text.span(n.lineno - 1, n.col_offset, (n.end_lineno or n.lineno) - 1, n.end_col_offset),
            severity="information",
            code=SKIPPED_NAME,
            message=(
                f"`{n.id}` is only bound by a notebook statement ExportLens does not run (it runs the"
                " imports, definitions and constants of the other cells, and this cell whole): bind"
                f" `{n.id}` in this cell, or make it a constant, a function or an import."
            ),
        )
        for n in runs_of(doc).missing
    ]


def notebook_document(path: str, cells: list[Cell], version: int = 0, uri: str | None = None) -> Document:
    """The notebook's `Document`: the text the worker runs, its cells kept with it."""
    notebook = Notebook(cells)
    runs = decide(notebook)  # one parse of the joined cells: its text and tree are the document's
    doc = Document(path, runs.text, version, uri, notebook=notebook, parsed=runs.tree)
    doc.derived(RUNS, lambda _: runs)  # kept with the document it made
    return doc


def runs_of(doc: Document) -> Runs:
    """What of the notebook `doc` a check runs, as `notebook_document` decided it."""
    assert doc.notebook is not None, "runs_of: not a notebook's document"
    notebook = doc.notebook
    return doc.derived(RUNS, lambda _: decide(notebook))
