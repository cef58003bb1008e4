"""The open buffers as `Document` snapshots: one per version, built once, read by every handler.

pygls keeps each buffer's text; this index turns its current text into the one `Document` for
that version (document.py), so the scheduler, code actions, hover, code lens and commands all
read the same snapshot and its one parse.  A handler that awaits keeps the snapshot it started
with: results computed for it are published with its version and dropped when the buffer has
moved on.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote

from lsprotocol import types
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument, Workspace

from ..document import Document
from ..notebook import Cell, notebook_document

# An open notebook's version and cells (`notebook_cells`), None for a URI that is no notebook.
NotebookCells = Callable[[str], tuple[int, list[Cell]] | None]

# The notebook kinds checked: Jupyter notebooks and VS Code's interactive window, Python cells.
NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(
    notebook_selector=[
        types.NotebookDocumentFilterWithCells(
            cells=[types.NotebookCellLanguage(language="python")], notebook=kind
        )
        for kind in ("jupyter-notebook", "interactive")
    ],
    save=True,
)


def notebook_cells(workspace: Workspace, uri: str) -> tuple[int, list[Cell]] | None:
    """The notebook `uri`'s version and cells, or None when `uri` is no open notebook."""
    notebook = workspace.get_notebook_document(notebook_uri=uri)
    if notebook is None:
        return None
    found = []
    for index, cell in enumerate(notebook.cells):
        if unquote(cell.document) not in workspace.text_documents:  # pygls keys them unquoted
            continue  # a cell the client never opened: nothing of it is known
        text = workspace.get_text_document(cell.document)
        code = cell.kind == types.NotebookCellKind.Code and text.language_id in (None, "python")
        found.append(Cell(index, text.source, cell.document, code, text.version or 0))
    return notebook.version, found


def buffer_path(uri: str) -> str:
    """The path a document's code runs under: the file's, or for a buffer that is no file
    (`untitled:`, `git:`, ...) one that exists nowhere, so nothing of it is read from disk."""
    path = to_fs_path(uri) if uri.startswith("file:") else None
    if path:
        return str(Path(path).resolve())
    name = re.sub(r"\W", "_", uri.split(":", 1)[-1]).strip("_") or "buffer"
    return str(Path(tempfile.gettempdir()) / "exportlens-no-such-dir" / f"{uri.split(':', 1)[0]}_{name}.py")


class Documents:
    def __init__(
        self, text_document: Callable[[str], TextDocument], notebook: NotebookCells | None = None
    ) -> None:
        self._text_document = text_document
        self._notebook = notebook or (lambda uri: None)
        self._current: dict[str, Document] = {}

    def get(self, uri: str) -> Document:
        """The snapshot of the buffer as it is now."""
        cells = self._notebook(uri)
        if cells is not None:
            return self._notebook_snapshot(uri, *cells)
        buffer = self._text_document(uri)
        version, text = buffer.version or 0, buffer.source
        known = self._current.get(uri)
        if known is not None and known.version == version and (known.text is text or known.text == text):
            return known
        doc = Document(known.path if known else buffer_path(uri), text, version, uri)
        self._current[uri] = doc
        return doc

    def _notebook_snapshot(self, uri: str, version: int, cells: list[Cell]) -> Document:
        """A notebook's code cells as one document at the notebook's version."""
        known = self._current.get(uri)
        if known is not None and known.version == version and known.notebook is not None:
            if [(c.uri, c.text, c.code) for c in known.notebook.cells] == [
                (c.uri, c.text, c.code) for c in cells
            ]:
                return known
        doc = notebook_document(known.path if known else buffer_path(uri), cells, version, uri)
        self._current[uri] = doc
        return doc

    def version(self, uri: str) -> int:
        cells = self._notebook(uri)
        if cells is not None:
            return cells[0]
        return self._text_document(uri).version or 0

    def forget(self, uri: str) -> None:
        self._current.pop(uri, None)
