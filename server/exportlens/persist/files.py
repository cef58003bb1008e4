"""`exportlens check` with the results store: an unchanged file (its text and its context, see
fingerprint.py) is reported from the store without exporting, and the worker is not even started
when every file is unchanged.  `--no-cache` bypasses it."""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..document import Document
from ..engine import Engine
from ..findings import FileResult
from ..job_building import CheckOptions
from . import fingerprint
from .store import ResultStore, Stored

KIND = "cli"
WHOLE = ""  # the CLI keeps a file's result as one entry


class FileCache:
    def __init__(self, store: ResultStore, python: str | None, salt: tuple[object, ...]) -> None:
        self.store = store
        self.env = fingerprint.environment(python)
        self.salt = salt
        self.hits = 0

    async def check(self, engine: Engine, path: str, options: CheckOptions) -> FileResult:
        path = str(Path(path).resolve())
        try:
            doc = Document.from_file(path)
        except (SyntaxError, UnicodeDecodeError):
            from ..check import check_file

            return await check_file(engine, path, None, options)  # reports why it cannot be read
        context = fingerprint.context(doc, options.roots, self.env, self.salt)
        digest = hashlib.sha256(doc.text.encode("utf-8", "surrogatepass"))
        # which of its classes other files' exports cover (covered.py) changes what is said of them
        digest.update(repr(sorted(c for c in options.covered if c[0] == path)).encode())
        key = digest.hexdigest()
        stored = self.store.load(path, context, KIND).get(WHOLE)
        if stored is not None and stored.key == key:
            self.hits += 1
            return FileResult(path, stored.results, stored.findings)
        from ..check import check_document  # the diagnosis stack: imported for a miss only

        result = await check_document(engine, doc, options)
        if not any(m.status in ("timeout", "crashed", "cancelled") for m in result.modules):
            # a timeout or a crash may not happen next time: never kept
            self.store.save(path, context, {WHOLE: Stored(key, result.modules, result.diagnostics)}, KIND)
        return result
