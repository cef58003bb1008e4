"""A workspace file read from disk as a `Document`: a Python file decoded as Python does, a
Jupyter notebook as the text of its cells that run (notebook/).

A file read again with the same text is the same `Document`: the workspace files a check reads (a
parent file, an export site, what a module imports) are parsed once per text, however many checks
read them. Keyed by the text itself, not by its mtime: a file rewritten within the clock's
resolution is never taken for its old self.
"""

from __future__ import annotations

import tokenize

from .document import Document
from .notebook import notebook_document, read_ipynb

ON_DISK_LIMIT = 2000  # files whose last Document read from disk is kept
_ON_DISK: dict[str, Document] = {}  # path -> its last Document read from disk, oldest read first


def read_document(path: str) -> Document:
    """The file at `path` (raises OSError, SyntaxError, UnicodeDecodeError)."""
    if path.endswith(".ipynb"):
        return _notebook_file(path)
    with tokenize.open(path) as stream:
        text = stream.read()
    known = _ON_DISK.pop(path, None)
    doc = known if known is not None and known.text == text else Document(path, text)
    if len(_ON_DISK) >= ON_DISK_LIMIT:
        _ON_DISK.pop(next(iter(_ON_DISK)))  # the least recently read file
    _ON_DISK[path] = doc
    return doc


def _notebook_file(path: str) -> Document:
    """A notebook on disk (raises OSError; a file that is no notebook: SyntaxError, as for a file
    Python cannot read)."""
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
