"""One text of one file at one version, parsed once: what every step after the buffer reads.

The language server makes one `Document` per buffer version (lsp/documents.py), the CLI one per
file; the scheduler, `check_file`, the diagnosis context, the fixes (a fix's candidate text is
a `Document` too), hover, code lens and the commands all take it.  Everything derived from the
text (its lines, its syntax tree or syntax error, the discovery result, the lookups fixes make)
is computed the first time it is asked for and kept with the text, so nothing parses the same
text twice.  A `Document` never changes: an edit makes a new one.  The trees it hands out are shared: readers
never modify them (a fix builder that rewrites nodes works on a copy).
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .textpos import SourceText

if TYPE_CHECKING:
    from .discovery import Discovery
    from .notebook import Notebook

# Line breaks str.splitlines knows and Python's tokenizer does not: with them, text lines and
# the syntax tree's line numbers disagree.
_OTHER_BREAKS = frozenset("\v\f\x1c\x1d\x1e\x85\u2028\u2029")


ON_DISK_LIMIT = 2000  # files whose last Document read from disk is kept (`Document.from_file`)


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

    @classmethod
    def from_file(cls, path: str) -> Document:
        """The file's text decoded as Python does (raises OSError, SyntaxError, UnicodeDecodeError).

        A file read again with the same text is the same `Document`: the workspace files a check
        reads (a parent file, an export site, what a module imports) are parsed once per text,
        however many checks read them. Keyed by the text itself, not by its mtime: a file
        rewritten within the clock's resolution is never taken for its old self."""
        import tokenize

        if path.endswith(".ipynb"):
            return _notebook_file(path)
        with tokenize.open(path) as stream:
            text = stream.read()
        known = _ON_DISK.pop(path, None)
        doc = known if known is not None and known.text == text else cls(path, text)
        if len(_ON_DISK) >= ON_DISK_LIMIT:
            _ON_DISK.pop(next(iter(_ON_DISK)))  # the least recently read file
        _ON_DISK[path] = doc
        return doc

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

    @functools.cached_property
    def discovery(self) -> Discovery:
        from .discovery import discover_document

        return discover_document(self)

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


_ON_DISK: dict[str, Document] = {}  # path -> its last Document read from disk, oldest read first


def _notebook_file(path: str) -> Document:
    """A notebook on disk (raises OSError; a file that is no notebook: SyntaxError, as for a file
    Python cannot read)."""
    from .notebook import notebook_document, read_ipynb

    try:
        cells = read_ipynb(path)
    except ValueError as exc:
        raise SyntaxError(str(exc), (path, 1, 1, None)) from exc
    known = _ON_DISK.get(path)
    doc = notebook_document(path, cells)
    if known is not None and known.text == doc.text and known.notebook and doc.notebook:
        if known.notebook.text == doc.notebook.text:
            return known
    _ON_DISK[path] = doc
    return doc


def names_in(tree: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))
    }
