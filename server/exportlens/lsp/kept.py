"""The server's side of the results store (persist/): restore on open, keep after each check.

On open or save the scheduler asks for the file's context (the interpreter, what is installed,
the settings, the imported workspace files) and restores every module whose stored key is its
key now: published at once, marked cached, while the check that follows re-verifies them.
After each batch of a check the file's current results are stored again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from pathlib import Path

from ..document import Document
from ..persist import fingerprint
from ..persist.store import ResultStore, Stored, default_folder
from .session import Session, Snapshot
from .state import FileState, ModuleEntry

log = logging.getLogger("exportlens.lsp")
PROBE_TIMEOUT = 30.0


class KeptResults:
    def __init__(self) -> None:
        self.folder: Path | None = (
            None  # initializationOptions.cacheDir (the editor's storage), else the default
        )
        self._store: ResultStore | None = None
        self._environments: dict[str | None, fingerprint.Environment] = {}

    @property
    def store(self) -> ResultStore:
        if self._store is None:
            self._store = ResultStore(self.folder or default_folder())
        return self._store

    async def context(self, snap: Snapshot) -> str:
        """Asks the interpreter once per setting, then reads the imported files (in a thread)."""
        settings = snap.settings
        env = self._environments.get(settings.python) or await self._probe(settings.python)
        roots = list(snap.roots)
        return await asyncio.to_thread(fingerprint.context, snap.document, roots, env, settings.results_key())

    async def learn_library(self, python: str | None, session: Session) -> None:
        """The interpreter's library folders (its probe's answer), for the session's `skipped`."""
        env = self._environments.get(python) or await self._probe(python)
        if env.library and not set(env.library) <= set(session.library):
            session.library = tuple(dict.fromkeys((*session.library, *env.library)))

    async def _probe(self, python: str | None) -> fingerprint.Environment:
        """The interpreter's answer, from a child of the event loop: a check cancelled by shutdown
        (or a newer version) kills and reaps it, so nothing of the server outlives it."""
        command = fingerprint.probe_command(python)
        try:
            proc = await asyncio.create_subprocess_exec(
                *command,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
            )
        except OSError as exc:
            log.info("no results cache: cannot ask %s (%s)", command[0], exc)
            return fingerprint.Environment("")
        try:
            answer, _ = await asyncio.wait_for(proc.communicate(), PROBE_TIMEOUT)
        except (asyncio.CancelledError, TimeoutError) as exc:
            with contextlib.suppress(ProcessLookupError):  # it may have answered and exited
                proc.kill()
            await proc.wait()
            if isinstance(exc, asyncio.CancelledError):
                raise
            log.info("no results cache: %s did not answer in %.0f s", command[0], PROBE_TIMEOUT)
            return fingerprint.Environment("")
        env = fingerprint.read_environment(command[0], answer.decode("utf-8", "replace"))
        if env.digest:
            self._environments[python] = env
        return env

    def restore(self, state: FileState, doc: Document, keys: Mapping[str, str]) -> bool:
        """Stored results for modules that have none yet; True when any was restored."""
        restored = False
        for name, stored in self.store.load(doc.path, state.context).items():
            if keys.get(name) == stored.key and name not in state.entries:
                state.entries[name] = ModuleEntry(
                    stored.key, stored.results, stored.findings, doc.version, cached=True
                )
                restored = True
        return restored

    def keep(self, state: FileState, keys: Mapping[str, str]) -> None:
        """Store the file's current, checked results (not restored ones, not another file's site)."""
        modules = {
            name: Stored(entry.key, entry.results, entry.findings)
            for name, entry in state.entries.items()
            if not entry.cached
            and entry.site is None
            and keys.get(name) == entry.key
            # a timeout or a crash may not happen next time: never kept
            and not any(r.status in ("timeout", "crashed", "cancelled") for r in entry.results)
        }
        if modules and state.uri.startswith("file:"):
            self.store.save(state.path, state.context, modules)
