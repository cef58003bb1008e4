"""One text of one file at one version, parsed once: what every step after the buffer reads.

The language server makes one `Document` per buffer version (lsp/documents.py), the CLI one per
file (reading.py reads one from disk); the scheduler, `check_file`, the diagnosis context, the
fixes (a fix's candidate text is a `Document` too), hover, code lens and the commands all take it.
Everything derived from the text (its lines, its syntax tree or syntax error, the lookups fixes
make; the layers above keep theirs with it too, `derived`: discovery/'s `discovery_of`) is
computed the first time it is asked for and kept with the text, so nothing parses the same text
twice.  A `Document` never changes: an edit makes a new one.  The trees it hands out are shared:
readers never modify them (a fix builder that rewrites nodes works on a copy).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, cast

from .textpos import SourceText

if TYPE_CHECKING:
    from .notebook.cells import Notebook

T = TypeVar("T")

# Line breaks str.splitlines knows and Python's tokenizer does not: with them, text lines and
# the syntax tree's line numbers disagree.
_OTHER_BREAKS = frozenset("\v\f\x1c\x1d\x1e\x85\u2028\u2029")


@dataclass(frozen=True, eq=False)
class Document:
    path: str  # resolved path the code runs under (for a buffer that is no file: one that exists nowhere)
    text: str
    version: int = 0  # the editor's document version; 0 for a file read from disk
    uri: str | None = None
    # A Jupyter notebook's: `text` is what of its code cells runs, each line where it is in its
    # cell (notebook/).
    notebook: Notebook | None = None
    # The tree of `text` when its maker already has it (a notebook's: its kept statements, from the
    # one parse of the joined cells); else parsed on first use.
    parsed: ast.Module | None = field(default=None, repr=False)
    _derived: dict[str, Any] = field(default_factory=dict, init=False, repr=False)

    @functools.cached_property
    def source_text(self) -> SourceText:
        return SourceText(self.text)

    @functools.cached_property
    def _parsed(self) -> ast.Module | SyntaxError:
        if self.parsed is not None:
            return self.parsed
        try:
            return ast.parse(self.text, self.path)
        except SyntaxError as exc:
            return exc
        except ValueError as exc:  # a NUL byte: Python refuses the text before parsing it
            return SyntaxError(str(exc), (self.path, 1, 1, None))

    @property
    def syntax_error(self) -> SyntaxError | None:
        return self._parsed if isinstance(self._parsed, SyntaxError) else None

    @property
    def tree(self) -> ast.Module:
        """The syntax tree; raises the SyntaxError when the text does not parse."""
        if isinstance(self._parsed, SyntaxError):
            raise self._parsed
        return self._parsed

    def derived(self, key: str, compute: Callable[[Document], T]) -> T:
        """What `compute` derives from this text, computed once and kept with it: the layers above
        keep their results here (discovery/'s `discovery_of`) without this value knowing them."""
        if key not in self._derived:
            self._derived[key] = compute(self)
        return cast(T, self._derived[key])

    # -- lookups the fix builders share (fixes/) ----------------------------------------
    @functools.cached_property
    def names(self) -> frozenset[str]:
        """Every name bound or read anywhere in the text: a new name must avoid them all."""
        return frozenset(names_in(self.tree))

    @functools.cached_property
    def parents(self) -> dict[ast.AST, ast.AST]:
        return {child: node for node in ast.walk(self.tree) for child in ast.iter_child_nodes(node)}

    @functools.cached_property
    def top_level_spans(self) -> list[tuple[int, int]] | None:
        """0-based [first, end) lines of each top-level statement, from its first line (decorators
        included) to the next one's: the blank and comment lines after a statement are its own (an
        indented line inserted there continues it).  None when the text does not parse or its
        lines are not the tree's lines."""
        if _OTHER_BREAKS.intersection(self.text) or self.syntax_error is not None:
            return None
        starts = []
        for stmt in self.tree.body:
            decorators = getattr(stmt, "decorator_list", None) or []
            starts.append(min([stmt.lineno, *(d.lineno for d in decorators)]) - 1)
        if not starts:
            return []
        starts[0] = 0  # leading comments belong to the first statement
        return list(zip(starts, [*starts[1:], self.text.count("\n") + 1], strict=True))


def names_in(tree: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))
    }
