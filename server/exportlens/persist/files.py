"""`exportlens check` with the results store: an unchanged file (its text and its context, see
fingerprint.py, and the files that check its modules elsewhere: check/plan.py) is reported from
the store without exporting, and the worker is not even started when every file is unchanged.
`--no-cache` bypasses it.  A file that cannot be read never reaches it (check/plan.py's
`plan_file` makes its finding)."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from ..check.plan import PlannedFile
from ..engine import Engine
from ..findings import FileResult
from . import fingerprint
from .store import ResultStore, Stored

if TYPE_CHECKING:  # the check's stack is imported for a miss only
    from ..check.run import EarlyReport

KIND = "cli"
WHOLE = ""  # the CLI keeps a file's result as one entry


class FileCache:
    def __init__(self, store: ResultStore, python: str | None, salt: tuple[object, ...]) -> None:
        self.store = store
        self.env = fingerprint.environment(python)
        self.salt = salt
        self.hits = 0

    async def check(
        self,
        engine: Engine,
        planned: PlannedFile,
        settings: tuple[object, ...] = (),
        early: EarlyReport | None = None,
    ) -> FileResult:
        """`settings`: the file's results key (config/settings.py), its project's configuration in;
        `early`: hears each module's first failure of a file checked again (check_planned)."""
        doc, placement = planned.doc, planned.placement
        salt = (*self.salt, settings, sorted(placement.elsewhere().items()))
        context = fingerprint.context(doc, planned.options.roots, self.env, salt, placement.files())
        key = hashlib.sha256(doc.text.encode("utf-8", "surrogatepass")).hexdigest()
        stored = self.store.load(doc.path, context, KIND).get(WHOLE)
        if stored is not None and stored.key == key:
            self.hits += 1
            return FileResult(doc.path, stored.results, stored.findings)
        from ..fixes.said import checked  # the diagnosis stack: imported for a miss only

        result = await checked(engine, planned, early)
        if not any(m.status in ("timeout", "crashed", "cancelled") for m in result.modules):
            # a timeout or a crash may not happen next time: never kept
            self.store.save(doc.path, context, {WHOLE: Stored(key, result.modules, result.diagnostics)}, KIND)
        return result
