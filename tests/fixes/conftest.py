"""Drive quick-fixes through the real server (tests/lsp/conftest.py's session), apply them like a client."""

from __future__ import annotations

import ast
import asyncio
import types as pytypes
from typing import Any

from lsprotocol import types

from tests.lsp.conftest import WAIT, Session, server, shared_server  # noqa: F401 - fixtures

CHECKING = "(checking…)"


async def actions(
    session: Session, uri: str, line: int, published: list[types.Diagnostic] | None = None
) -> list[types.CodeAction]:
    """The code actions on `line`, with the diagnostics published there (or `published`) as context."""
    if published is None:
        published = session.diagnostics(uri, session.versions[uri])
    diagnostics = [d for d in published if d.range.start.line <= line <= d.range.end.line]
    where = types.Range(
        start=types.Position(line=line, character=0), end=types.Position(line=line, character=0)
    )
    result = await session.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=where,
            context=types.CodeActionContext(diagnostics=diagnostics),
        )
    )
    return [a for a in result or [] if isinstance(a, types.CodeAction)]


async def proven(session: Session, uri: str, line: int) -> list[types.CodeAction]:
    """Poll until no action on `line` is still being proven (the server proves in the background)."""
    found: list[types.CodeAction] = []

    async def poll() -> None:
        nonlocal found
        while True:
            found = await actions(session, uri, line)
            if found and not any(CHECKING in a.title for a in found):
                return
            await asyncio.sleep(0.1)

    await asyncio.wait_for(poll(), WAIT)
    return found


async def resolve(session: Session, action: types.CodeAction) -> types.CodeAction:
    return await session.client.code_action_resolve_async(action)


def pick(found: list[types.CodeAction], start: str) -> types.CodeAction:
    hits = [a for a in found if a.title.startswith(start)]
    assert hits, f"no action {start!r} in {[a.title for a in found]}"
    return hits[0]


def apply_edit(text: str, edit: types.WorkspaceEdit | None, uri: str, version: int) -> str:
    """Apply a WorkspaceEdit as a client does: one versioned TextDocumentEdit, refused if stale."""
    assert edit is not None and edit.document_changes, "no edit"
    (change,) = edit.document_changes
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.uri == uri
    assert change.text_document.version == version, "stale edit"
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for ln in lines:
        offsets.append(offsets[-1] + len(ln))

    def at(p: types.Position) -> int:  # the tests' sources are ASCII: UTF-16 == str index
        return offsets[min(p.line, len(lines))] + (p.character if p.line < len(lines) else 0)

    # from the end back; edits at one position insert in the order they are listed (the spec's rule),
    # so of those the last listed goes in first
    ordered = sorted(
        enumerate(change.edits), key=lambda ie: (ie[1].range.start.line, ie[1].range.start.character, ie[0])
    )
    for _, e in reversed(ordered):
        assert isinstance(e, types.TextEdit)
        text = text[: at(e.range.start)] + e.new_text + text[at(e.range.end) :]
    ast.parse(text)
    return text


def load(source: str, name: str) -> dict[str, Any]:
    """Execute a test source (not its __main__ block) in-process; its namespace."""
    module = pytypes.ModuleType(name)
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    return module.__dict__


def errors(diagnostics: list[types.Diagnostic]) -> list[Any]:
    return [d.code for d in diagnostics if d.severity == types.DiagnosticSeverity.Error]


async def saved(session: Session, uri: str, name: str, text: str) -> list[types.Diagnostic]:
    """The buffer changed to `text` and saved, as an editor does: the other file's check reruns."""
    version = session.change(uri, text)
    (session.root / name).write_text(text, encoding="utf-8")
    mark = len(session.record.checked)
    session.client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return await session.wait_checked(uri, version, mark)
