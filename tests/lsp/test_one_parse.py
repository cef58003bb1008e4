"""One edit of a buffer is parsed once in the server: the scheduler, the check, the diagnosis,
the fixes and their proofs, hover, code lens and code actions all read the one `Document` of
that version (document.py).  Counted through the real server over stdio, with `ast.parse`
instrumented in its process (parse_counting_server.py)."""

from __future__ import annotations

import asyncio
import hashlib
import os
import sys
import textwrap
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest_asyncio
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.conftest import WORKER_PYTHON

from .conftest import SERVER_DIR, Session, initialize, make_client, stop

COUNTING_SERVER = str(Path(__file__).with_name("parse_counting_server.py"))

# Two modules, each with a failure that has quick-fixes (a data-dependent branch), an export call.
SOURCE = """
import torch


class Gate(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x + 1
        return x - 1


class Scale(torch.nn.Module):
    def forward(self, x):
        return x * 2


if __name__ == "__main__":
    torch.export.export(Gate(), (torch.ones(3),))
    torch.export.export(Scale(), (torch.ones(3),))
"""


@pytest_asyncio.fixture(loop_scope="session")
async def counted_server(tmp_path: Path) -> AsyncIterator[tuple[Session, Path]]:
    log = tmp_path / "parses.log"
    root = tmp_path / "ws"
    root.mkdir()
    env = dict(os.environ, PYTHONPATH=SERVER_DIR, EXPORTLENS_PARSE_LOG=str(log))
    config = ClientServerConfig(
        server_command=[sys.executable, COUNTING_SERVER], client_factory=make_client, server_env=env
    )
    client = await config.start()
    assert isinstance(client, LanguageClient)
    settings: dict[str, Any] = {"debounceMs": 0, "timeoutSeconds": 60}
    if WORKER_PYTHON:
        settings["python"] = WORKER_PYTHON
    session = await initialize(client, root.resolve(), settings)
    yield session, log
    await stop(session)


def parses_of(log: Path, text: str) -> int:
    digest = hashlib.sha1(text.encode()).hexdigest()
    return log.read_text().splitlines().count(digest) if log.exists() else 0


async def test_one_edit_is_parsed_once(counted_server: tuple[Session, Path]) -> None:
    server, log = counted_server
    uri, text = server.write("gate.py", SOURCE)
    opened = await server.open_uri(uri, text)
    assert any(d.code == "data-dependent-branch" for d in opened), opened
    assert parses_of(log, text) == 1

    edited = text.replace("return x * 2", "return x * 3")
    version = server.change(uri, edited)
    diagnostics = await server.wait_checked(uri, version)
    branch = next(d for d in diagnostics if d.code == "data-dependent-branch")
    # Every feature asks about this version: they read its document, they do not parse it.
    await server.lenses(uri)
    await server.hover(uri, line_of(edited, "class Gate"), 7)
    await server.hover(uri, line_of(edited, "if x.sum()"), 8)
    actions = await server.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=branch.range,
            context=types.CodeActionContext(diagnostics=[branch]),
        )
    )
    assert actions, "the data-dependent branch has quick-fixes"
    await server.command("exportlens.graph", uri, "Scale")
    assert parses_of(log, edited) == 1, "one edit, one parse in the server"


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(textwrap.dedent(text).splitlines()) if needle in line)


# A part-only file and the workspace file that exports what it is part of (check/elsewhere.py).
BLOCK = """
import torch


class Block(torch.nn.Module):
    def forward(self, x):
        return x.relu() * 2
"""
PARENT = """
import torch

from block import Block


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x):
        return self.block(x) + 1


if __name__ == "__main__":
    torch.export.export(Net(), (torch.ones(3),))
"""


async def test_a_parent_file_on_disk_is_parsed_once_across_checks(
    counted_server: tuple[Session, Path],
) -> None:
    """Each check of `block.py` runs `model.py` (the export site, the parent's check, the import
    links and the result keys all read it): its text is parsed once, not once per reader and
    check."""
    server, log = counted_server
    _, parent = server.write("model.py", PARENT)
    uri, text = server.write("block.py", BLOCK)
    assert await server.open_uri(uri, text) == []
    lenses = await server.lenses(uri)
    alone = "part of a module of model.py · alone: ✓ exports"
    assert any(title.startswith(alone) for title in lenses), lenses
    for factor in ("3", "4"):
        version = server.change(uri, text.replace("* 2", f"* {factor}"))
        assert await server.wait_checked(uri, version) == []
    assert parses_of(log, parent) == 1, "the parent file's one text, parsed once in the server"


async def test_each_text_is_parsed_at_most_once_fix_candidates_included(
    counted_server: tuple[Session, Path],
) -> None:
    """The buffer, and each fix's candidate text: validated when the fixes are computed, then
    proven and discovered from that one `Document` (fixes/model.py `Fix.proposed`), never parsed
    again. No text at all is parsed twice (the regions a validation parses included)."""
    server, log = counted_server
    uri, text = server.write("gate_fixes.py", SOURCE)
    opened = await server.open_uri(uri, text)
    branch = next(d for d in opened if d.code == "data-dependent-branch")
    # "Ignore `code` on this line" writes a comment: no candidate text the server exports
    actions = [a for a in await proven_actions(server, uri, branch) if not a.title.startswith("Ignore `")]
    candidates = []
    for action in actions:
        resolved = await server.client.code_action_resolve_async(action)
        assert resolved.edit is not None and resolved.edit.document_changes, resolved
        (change,) = resolved.edit.document_changes
        assert isinstance(change, types.TextDocumentEdit)
        candidates.append(edited_text(text, change.edits))
    assert candidates, "the data-dependent branch has fixes that are proven"
    assert parses_of(log, text) == 1
    for candidate in candidates:
        assert parses_of(log, candidate) == 1, f"a fix's candidate parsed again:\n{candidate}"
    counts = Counter(log.read_text().splitlines())
    assert [n for n in counts.values() if n > 1] == [], "a text parsed more than once in the server"


async def proven_actions(server: Session, uri: str, diagnostic: types.Diagnostic) -> list[types.CodeAction]:
    """The fixes offered for `diagnostic` once none is still being proven (the proofs export each
    candidate, so each has been discovered by then)."""
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=diagnostic.range,
        context=types.CodeActionContext(diagnostics=[diagnostic]),
    )
    found: list[types.CodeAction] = []

    def settled() -> bool:
        return bool(found) and not any("checking" in a.title for a in found)

    while not settled():
        answer = await server.client.text_document_code_action_async(params) or []
        found = [a for a in answer if isinstance(a, types.CodeAction) and a.disabled is None]
        if not settled():
            await asyncio.sleep(0.1)
    return found


def edited_text(text: str, edits: Sequence[types.TextEdit | types.AnnotatedTextEdit]) -> str:
    """`text` after the LSP edits (positions in UTF-16 columns: this file is ASCII)."""
    lines = text.splitlines(keepends=True)
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start = sum(len(x) for x in lines[: e.range.start.line]) + e.range.start.character
        end = sum(len(x) for x in lines[: e.range.end.line]) + e.range.end.character
        text = text[:start] + e.new_text + text[end:]
        lines = text.splitlines(keepends=True)
    return text


async def test_a_notebook_is_parsed_once_per_edit(counted_server: tuple[Session, Path]) -> None:
    """The joined code cells are parsed once; the text the worker runs (training cells blanked)
    is that parse's kept statements, not a second parse (notebook/runs.py)."""
    from exportlens.notebook import Cell
    from exportlens.notebook.cells import Notebook as Joined
    from exportlens.notebook.runs import decide

    from .test_notebooks_server import EXPORT, GATE, IMPORTS, TRAIN, Notebook

    server, log = counted_server
    cells = [Cell(0, IMPORTS + GATE), Cell(1, TRAIN), Cell(2, EXPORT)]
    notebook = Notebook(server, "gate.ipynb", cells)
    await notebook.checked(1)
    assert [d.code for d in notebook.diagnostics(0)] == ["data-dependent-branch"]
    joined = Joined(cells)
    runs = decide(joined)  # what the server decided, decided again here
    assert runs.text != joined.text, "the training cell is blanked"
    assert (parses_of(log, joined.text), parses_of(log, runs.text)) == (1, 0)
    notebook.close()
