"""Quick-fixes (textDocument/codeAction + codeAction/resolve), proven before they are preferred.

- After diagnostics are published for a document (the server's `after_publish` step), the fixes
  for them are computed on that document's one parse
  and each is proven in the background: the worker exports the buffer with the fix applied and
  compares with eager mode (fixes/proof.py, worker/job/verify.py).  One proof runs at a time, and a
  proof for a version that is no longer current is dropped, so checks of new text are never kept
  waiting behind more than one proof.
- A code-action request is answered from what is ready: a proven fix says what was proven in its
  title and is preferred; a fix whose proof is still running is offered with "(checking…)" and
  is never preferred; one that failed its proof says why and is not preferred; a rewrite that
  cannot be expressed is offered disabled with the reason. A graph break's fix (fixes/compiled.py)
  is not offered at all once its proof fails.
- The edit is computed in codeAction/resolve (or inline for clients without resolve support) as a
  TextDocumentEdit on the document *version* it was computed for, so a client whose buffer moved
  on refuses it; the server also refuses to offer or resolve for a version that is not current.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types

from ..check.jobs import CheckOptions
from ..check.plan import Placement
from ..document import Document
from ..findings import Finding
from ..fixes import Fix, fixes_for
from ..fixes.dynamic import dynamic_fixes, with_range
from ..fixes.proof import Proof, proof_job, verdict
from ..textpos import utf16_len
from . import notebooks, trust
from .app import ExportLensServer
from .ignore_action import ignore_actions
from .session import Snapshot

log = logging.getLogger("exportlens.lsp")
CHECKING = "(checking…)"


@dataclass
class Offered:
    """Per buffer: the fixes of its last published document and their proofs (kept while the text
    stays the same: a re-publish of an equal text keeps its proofs)."""

    document: Document
    options: CheckOptions  # how the document's modules are checked: its proofs export the same way
    placement: Placement = field(default_factory=Placement)  # modules checked through other files
    fixes: dict[str, tuple[Fix, Finding | None]] = field(default_factory=dict)
    proofs: dict[str, Proof] = field(default_factory=dict)
    queued: set[str] = field(default_factory=set)  # fixes whose proof is waiting or running
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    def cancel(self) -> None:
        for task in self.tasks:
            task.cancel()
        self.tasks, self.queued = [], set()


class CodeActions:
    def __init__(self, ls: ExportLensServer) -> None:
        self.ls = ls
        self.books: dict[str, Offered] = {}
        self.one_at_a_time = asyncio.Lock()

    # -- after publish: compute fixes, prove them in the background -------------------
    def closed(self, uri: str) -> None:
        book = self.books.pop(uri, None)
        if book is not None:
            book.cancel()

    def published(self, snap: Snapshot, findings: list[Finding]) -> None:
        doc, uri = snap.document, snap.uri
        book = self.books.get(uri)
        if book is None or book.document.text != doc.text:
            # new text: its proofs start over; the old ones are useless
            if book is not None:
                book.cancel()
            book = self.books[uri] = Offered(doc, snap.options())
        book.document, book.options, book.placement = doc, snap.options(), snap.placement
        book.fixes = {}
        if doc.syntax_error is not None:
            return  # no fixes while the file does not parse (its findings are an older text's)
        for finding in findings:
            for fix in _safe_fixes(doc, finding):
                book.fixes.setdefault(fix.key, (fix, finding))
        for fix in _safe_dynamic(doc):
            book.fixes.setdefault(fix.key, (fix, None))
            if fix.key in book.proofs:
                self.settle(book, doc, fix.key, book.proofs[fix.key])
        # Fixes for findings are proven now; "make dynamic" (no finding) once someone asks for it.
        self.prove(uri, book, [k for k, (_, found) in book.fixes.items() if found is not None])

    def prove(self, uri: str, book: Offered, keys: list[str]) -> None:
        """Queue proofs of these fixes (by key) unless proven or queued already."""
        todo = [
            k
            for k in keys
            if k not in book.proofs
            and k not in book.queued
            and not book.fixes[k][0].disabled
            and book.fixes[k][0].verify
        ]
        if todo and self.ls.trusted:
            book.queued |= set(todo)
            book.tasks = [t for t in book.tasks if not t.done()]
            book.tasks.append(
                self.ls.scheduler.in_background(self._prove(uri, book, book.document, todo), f"prove {uri}")
            )

    async def _prove(self, uri: str, book: Offered, doc: Document, todo: list[str]) -> None:
        for index, key in enumerate(todo):
            async with self.one_at_a_time:
                if not self.ls.session.is_current(doc) or key not in book.fixes:
                    book.queued -= set(todo[index:])  # a later publish of this text queues them again
                    return  # the buffer moved on: proofs for it are useless
                fix, finding = book.fixes[key]
                strict = None if finding is None or finding.mode is None else finding.mode == "strict"
                try:
                    job = proof_job(doc, fix, fix.module, strict, book.options, book.placement)
                    if job is None:
                        why = "no example inputs for this module in this file to prove it with"
                        self.settle(book, doc, key, Proof(False, None, 0, why, "self", checked=False))
                        continue
                    python = self.ls.session.settings_for(doc.path)[0].python
                    self.settle(book, doc, key, verdict(await self.ls.scheduler.run_job(job, python), fix))
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    log.exception("proving %r failed", fix.title)
                    why = f"the proof failed: {type(exc).__name__}"
                    self.settle(book, doc, key, Proof(False, None, 0, why, "self", checked=False))

    @staticmethod
    def settle(book: Offered, doc: Document, key: str, proof: Proof) -> None:
        """Record a proof; a make-dynamic fix is redone with the range torch proved."""
        book.proofs[key] = proof
        fix, finding = book.fixes.get(key, (None, None))
        if fix is None or fix.kind != "dynamic" or proof.refined is None:
            return
        redone = with_range(doc, fix, proof.refined)
        if isinstance(redone, str):
            book.proofs[key] = Proof(False, None, 0, redone, "self")
        else:
            book.fixes[key] = (redone, finding)

    # -- requests -------------------------------------------------------------------
    def actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        params = notebooks.code_action_params(self.ls, params)  # a cell's: its notebook's
        uri = params.text_document.uri
        book = self.books.get(uri)
        if book is None or book.document.version != self.ls.session.doc_version(uri):
            return []  # diagnostics of an older text: their fixes would land on the wrong lines
        wanted = {
            (d.code, d.range.start.line) for d in params.context.diagnostics if d.source == "exportlens"
        }
        inline = not _resolves_edits(self.ls)
        out = []
        lazy: list[str] = []
        for key, (fix, finding) in book.fixes.items():
            if finding is None and fix.line is not None:
                if not params.range.start.line <= fix.line <= params.range.end.line:
                    continue
                lazy.append(key)
            elif finding is None or not _relevant(finding, params.range, wanted):
                continue
            if _unproven_compile_fix(book, key, fix):
                continue
            action = types.CodeAction(
                title=self.title(book, key, fix),
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[d for d in params.context.diagnostics if d.code == fix.code] or None,
                is_preferred=self.preferred(book, key, fix),
                disabled=types.CodeActionDisabled(reason=fix.disabled) if fix.disabled else None,
                data={"uri": uri, "version": book.document.version, "key": key},
            )
            if inline and not fix.disabled:
                action.edit = workspace_edit(book.document, fix)
            out.append(action)
        self.prove(uri, book, lazy)
        out += ignore_actions(book.document, params)
        if book.document.notebook is not None:
            for action in out:
                action.edit = notebooks.to_cells(book.document, action.edit)
        return out

    def resolve(self, action: types.CodeAction) -> types.CodeAction:
        data = action.data if isinstance(action.data, dict) else {}
        if not data and action.edit is not None:
            return action  # computed whole, on its version (ignore_action.py)
        uri, version, key = data.get("uri"), data.get("version"), data.get("key")
        book = self.books.get(str(uri))
        entry = book.fixes.get(str(key)) if book else None
        if (
            book is None
            or entry is None
            or version != book.document.version
            or version != self.ls.session.doc_version(str(uri))
        ):
            action.edit = None
            action.disabled = types.CodeActionDisabled(
                reason="the document changed since this fix was offered: ask for fixes again"
            )
            return action
        fix = entry[0]
        if not fix.disabled:
            action.edit = workspace_edit(book.document, fix)
        action.title, action.is_preferred = (
            self.title(book, str(key), fix),
            self.preferred(book, str(key), fix),
        )
        return action

    def title(self, book: Offered, key: str, fix: Fix) -> str:
        if fix.disabled:
            return f"{fix.title} (not offered: {fix.disabled})"
        proof = book.proofs.get(key)
        if fix.verify is None:
            return fix.title
        if not self.ls.trusted:
            return f"{fix.title} (not checked: {trust.why_no_code()})"
        return f"{fix.title} {proof.suffix() if proof else CHECKING}"

    @staticmethod
    def preferred(book: Offered, key: str, fix: Fix) -> bool:
        proof = book.proofs.get(key)
        return bool(proof and proof.proven and not fix.disabled)


def _safe_fixes(doc: Document, finding: Finding) -> list[Fix]:
    try:
        return fixes_for(doc, finding.code, finding.range.start.line, finding.fix, finding.module)
    except Exception:
        log.exception("computing fixes for %s failed", finding.code)
        return []


def _safe_dynamic(doc: Document) -> list[Fix]:
    try:
        return dynamic_fixes(doc)
    except Exception:
        log.exception("computing make-dynamic fixes failed")
        return []


def _unproven_compile_fix(book: Offered, key: str, fix: Fix) -> bool:
    """A graph break's fix is offered only while being proven or once proven (fixes/compiled.py)."""
    if fix.verify is None or fix.verify.get("compile") is None:
        return False
    proof = book.proofs.get(key)
    return bool(fix.disabled) or (proof is not None and not proof.proven)


def _relevant(finding: Finding, where: types.Range, wanted: set[tuple[Any, int]]) -> bool:
    if (finding.code, finding.range.start.line) in wanted:
        return True
    return finding.range.start.line <= where.end.line and where.start.line <= finding.range.end.line


def _resolves_edits(ls: ExportLensServer) -> bool:
    text = ls.client_capabilities.text_document
    support = text.code_action.resolve_support if text and text.code_action else None
    return bool(support and "edit" in support.properties)


def workspace_edit(doc: Document, fix: Fix) -> types.WorkspaceEdit:
    """One TextDocumentEdit on the document's version: the client refuses it if its buffer is newer."""
    lines = doc.text.splitlines(keepends=True)
    edits = []
    for e in fix.edits:
        text = e.text
        if e.end >= len(lines) and lines and not lines[-1].endswith("\n"):
            end = types.Position(line=len(lines) - 1, character=utf16_len(lines[-1]))
            text = text.removesuffix("\n")
        else:
            end = types.Position(line=e.end, character=0)
        if e.first >= len(lines) and lines and not lines[-1].endswith("\n"):
            start = end
            text = "\n" + text
        else:
            start = types.Position(line=e.first, character=0)
        edits.append(types.TextEdit(range=types.Range(start=start, end=end), new_text=text))
    if doc.notebook is not None:
        return notebooks.cell_edit(doc, edits)  # each cell's edits on that cell's version
    document = types.OptionalVersionedTextDocumentIdentifier(uri=str(doc.uri), version=doc.version)
    return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(text_document=document, edits=edits)])


def register(server: ExportLensServer) -> None:
    actions = CodeActions(server)
    server.publisher.after_publish.append(actions.published)
    server.after_close.append(actions.closed)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix], resolve_provider=True),
    )
    def code_action(ls: ExportLensServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return actions.actions(params)

    @server.feature(types.CODE_ACTION_RESOLVE)
    def code_action_resolve(ls: ExportLensServer, params: types.CodeAction) -> types.CodeAction:
        return actions.resolve(params)
