"""The quick-fix "Ignore `code` on this line": writes `# exportlens: ignore[code]` at the end of
the finding's line (or adds the code to the comment there) as one edit on the document's version,
which a client whose buffer moved on refuses (check/suppression.py reads the comment)."""

from __future__ import annotations

import re

from lsprotocol import types

from ..check.suppression import ALL, COMMENT, comments
from ..document import Document
from ..findings import SOURCE
from ..textpos import utf16_len

# Codes a comment cannot silence usefully: the comment's own note, a pyproject.toml error, a
# file that does not parse (nothing was checked: the fix is the syntax, not a comment).
NOT_IGNORABLE = frozenset({"unknown-ignore-code", "config-error", "syntax-error"})


def ignore_actions(doc: Document, params: types.CodeActionParams) -> list[types.CodeAction]:
    lines = re.split(r"\r\n|\r|\n", doc.text)
    marks = comments(doc.text)
    out: list[types.CodeAction] = []
    seen: set[tuple[int, str]] = set()
    for diagnostic in params.context.diagnostics:
        code, line = str(diagnostic.code), diagnostic.range.start.line
        if diagnostic.source != SOURCE or code in NOT_IGNORABLE or not 0 <= line < len(lines):
            continue
        mark = marks.get(line)
        if (line, code) in seen or (mark is not None and (ALL in mark.codes or code in mark.codes)):
            continue
        seen.add((line, code))
        text = lines[line]
        match = COMMENT.search(text)
        if match is not None and mark is not None:  # add the code to the comment already there
            codes = ", ".join([*sorted(mark.codes), code])
            start, end = utf16_len(text[: match.start()]), utf16_len(text)
            new = f"# exportlens: ignore[{codes}]"
        else:
            start = end = utf16_len(text)
            new = f"  # exportlens: ignore[{code}]"
        where = types.Range(
            start=types.Position(line=line, character=start), end=types.Position(line=line, character=end)
        )
        document = types.OptionalVersionedTextDocumentIdentifier(uri=str(doc.uri), version=doc.version)
        edit = types.TextDocumentEdit(
            text_document=document, edits=[types.TextEdit(range=where, new_text=new)]
        )
        out.append(
            types.CodeAction(
                title=f"Ignore `{code}` on this line",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                is_preferred=False,
                edit=types.WorkspaceEdit(document_changes=[edit]),
            )
        )
    return out
