"""`exportlens check --fix` and `--diff` (issue 42, item 1): the fixes proven on the current text.

After the check (fixes/said.py proves each finding's candidates, as the editor does), a file's
fixes are applied one at a time: the first finding whose proof holds (`Finding.proof`, its fix
named by `key`), its fix made again on the current text (`fixes_for`, the same candidates the
proof ran on), applied, then the file is checked again, which proves the remaining findings' fixes
on the new text; up to `ROUNDS` fixes, never a text seen before. A fix the proof refused, or one
never proven, is never applied. The file is then written once: only when its final text parses and
its bytes on disk are still those read (else it is left as it is, and the CLI says why), in its own
encoding and line endings. `--diff` prints the same edits as a unified diff and writes nothing.
Notebooks are not fixed here (their quick-fixes are the editor's).
"""

from __future__ import annotations

import asyncio
import dataclasses
import difflib
import io
import sys
import tokenize
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..check.plan import PlannedFile
from ..document import Document
from ..findings import FileResult
from ..report.paths import display_path
from . import fixes_for
from .model import Fix

ROUNDS = 8  # fixes applied per file at most (each one is one more check of the file)

Check = Callable[[PlannedFile], Awaitable[FileResult]]


@dataclass
class Fixed:
    """One file's proven fixes: its text as read, with them applied, and the check of the latter."""

    path: str
    read: bytes
    before: str
    after: str
    applied: list[str] = field(default_factory=list)  # each fix's title with its proof
    refused: str | None = None  # why the file is not written (it changed, it would not parse)

    @property
    def changed(self) -> bool:
        return self.after != self.before and self.refused is None


def decoded(data: bytes) -> str:
    """The text of a file's bytes as Python reads it (reading.py: its coding, universal newlines)."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return io.TextIOWrapper(io.BytesIO(data), encoding, newline=None).read()


def encoded(text: str, like: bytes) -> bytes:
    """`text` in the encoding and line endings of the bytes it was read from."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(like).readline)
    newline = "\r\n" if b"\r\n" in like else "\n"
    return text.replace("\n", newline).encode(encoding)


def proven_fix(doc: Document, result: FileResult) -> tuple[Fix, str] | None:
    """The fix of the first finding of `doc` whose proof holds on this text, with its proven title."""
    for finding in result.diagnostics:
        proof = finding.proof or {}
        if not proof.get("fix") or not proof.get("key"):
            continue
        if Path(finding.path).resolve() != Path(doc.path).resolve():
            continue  # a culprit in another file: that file's own fix
        for fix in fixes_for(doc, finding.code, finding.range.start.line, finding.fix, finding.module):
            if fix.key == proof["key"] and fix.disabled is None and fix.candidate is not None:
                return fix, str(proof["fix"])
    return None


async def fix_file(planned: PlannedFile, result: FileResult, check: Check) -> Fixed | None:
    """`planned`'s file with its proven fixes applied in turn (`result`: its check as read)."""
    doc = planned.doc
    if doc.notebook is not None or doc.syntax_error is not None:
        return None
    read = await asyncio.to_thread(Path(doc.path).read_bytes)
    fixed = Fixed(doc.path, read, doc.text, doc.text)
    if decoded(read) != doc.text:
        fixed.refused = "it changed while it was checked"
        return fixed
    seen = {doc.text}
    for _ in range(ROUNDS):
        found = proven_fix(doc, result)
        if found is None:
            break
        fix, title = found
        patched = fix.proposed(doc)
        if patched.syntax_error is not None or patched.text in seen:
            break  # never a text that does not parse, nor a circle of fixes
        seen.add(patched.text)
        fixed.applied.append(title)
        doc = Document(doc.path, patched.text)
        # the check of the new text: its findings, and the proofs of their fixes on it
        result = await check(dataclasses.replace(planned, doc=doc))
    fixed.after = doc.text
    return fixed


async def fix_files(files: list[tuple[PlannedFile | FileResult, FileResult, Check]]) -> list[Fixed]:
    """Each planned file with its proven fixes (an unreadable file has none)."""
    jobs = [fix_file(p, r, check) for p, r, check in files if isinstance(p, PlannedFile)]
    return [f for f in await asyncio.gather(*jobs) if f is not None]


def unified(fixed: Fixed, cwd: Path) -> str:
    shown = display_path(fixed.path, cwd)
    lines = difflib.unified_diff(
        fixed.before.splitlines(keepends=True),
        fixed.after.splitlines(keepends=True),
        fromfile=f"a/{shown}",
        tofile=f"b/{shown}",
    )
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


def write(fixed: Fixed) -> None:
    """Write the fixed text, once, unless it would not parse or the file changed since it was read
    (then `fixed.refused` says so and the file is left as it is)."""
    if not fixed.changed:
        return
    if Document(fixed.path, fixed.after).syntax_error is not None:
        fixed.refused = "the fixed text would not parse"
        return
    path = Path(fixed.path)
    if path.read_bytes() != fixed.read:
        fixed.refused = "it changed since it was read"
        return
    path.write_bytes(encoded(fixed.after, fixed.read))


def conclude(fixed: list[Fixed], apply: bool, cwd: Path) -> bool:
    """`--diff`'s diffs on stdout, or `--fix`'s writes; on stderr what was applied or refused, per
    file. Whether a file changed (or would)."""
    out: list[str] = []
    said: list[str] = []
    for each in fixed:
        if apply:
            write(each)
        elif each.changed:
            out.append(unified(each, cwd))
        shown = display_path(each.path, cwd)
        if each.refused is not None:
            said.append(f"exportlens: {shown}: not fixed: {each.refused}")
        elif each.changed:
            verb = "fixed" if apply else "would fix"
            said += [f"exportlens: {shown}: {verb}: {title}" for title in each.applied]
    count = sum(len(f.applied) for f in fixed if f.changed)
    files = sum(f.changed for f in fixed)
    verb = "applied" if apply else "would apply (--fix writes them)"
    said.append(f"exportlens: {count} proven fix(es) in {files} file(s) {verb}")
    sys.stdout.write("".join(out))
    sys.stdout.flush()
    sys.stderr.write("".join(f"{line}\n" for line in said))
    return files > 0
