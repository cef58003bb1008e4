"""Where and when work runs: the one place that starts it.

- Checks run as one task per buffer: didOpen / didSave / the re-check command check every module,
  cache ignored (imported files may have changed on disk), and place its modules in the
  workspace again (check/plan.py); didChange (runOn "type") checks after `debounceMs` what
  check/plan.py's `plan` says, the touched modules first. A newer version cancels the older
  one's task; the engine cancels its jobs.
- Exports run in the engine's worker (engine_host.py): a check's, a command's, a fix's proof.
  Reading the workspace (placing modules, the results store's context) runs in a thread.
- A check reads a snapshot of its buffer (session.py) and writes its file state; a failed
  module's first failure is published as soon as the worker has it, its other failures when
  the search for them ends; what is published is of the version it was computed on
  (publishing.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Callable, Coroutine, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any, Literal, Protocol, TypeVar

from ..check.jobs import CheckOptions
from ..check.placed import check_placed
from ..check.plan import Placement, place, plan
from ..check.static_findings import syntax_finding
from ..discovery import Subject, discovery_of
from ..engine import Job, JobOutcome
from ..engine.process import WorkerError
from ..findings import FileResult, Finding, ModuleResult, Range
from . import trust
from .engine_host import EngineHost
from .kept import KeptResults
from .publishing import Publisher
from .session import Session, Snapshot
from .state import FileState, ModuleEntry, early_entry

log = logging.getLogger("exportlens.lsp")
CHECKED = "exportlens/fileChecked"  # notification: {uri, version, cancelled} once a check is over
T = TypeVar("T")


class Host(Protocol):
    """What the scheduler needs of the server (app.py's ExportLensServer): the session, where
    results go, and the client's few signals."""

    session: Session
    publisher: Publisher
    results: KeptResults

    async def until_settings_known(self) -> None: ...
    def notify_checked(self, uri: str, version: int, cancelled: bool) -> None: ...
    def refresh_lenses(self) -> None: ...
    def export_progress(
        self, message: str, on_cancel: Callable[[], None]
    ) -> AbstractAsyncContextManager[Any]: ...


class Scheduler:
    def __init__(self, ls: Host) -> None:
        self.ls = ls
        self.session = ls.session
        self.engines = EngineHost(ls.session)
        self.publisher = ls.publisher
        # (uri, module) -> what the user's Cancel of that module's running export calls
        self._cancels: dict[tuple[str, str], Callable[[], None]] = {}
        self._background: set[asyncio.Task[Any]] = set()

    # -- checks of buffers ---------------------------------------------------------------
    def schedule(self, uri: str, *, delay: float = 0.0, force: bool = False) -> None:
        state = self.session.file(uri)
        if state.task is not None and not state.task.done():
            state.task.cancel()
        version = self.session.doc_version(uri)
        state.task = asyncio.create_task(
            self._run(state, version, delay, force), name=f"check {uri}@{version}"
        )

    def close(self, uri: str) -> None:
        state = self.session.close(uri)
        if state is not None and state.task is not None:
            state.task.cancel()

    async def _run(self, state: FileState, version: int, delay: float, force: bool) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        if self.session.doc_version(state.uri) != version:
            return
        await self.ls.until_settings_known()
        await self._know_library(state, force)
        snap = self.session.snapshot(state.uri)  # the one this check reads and hands on
        state.settings = snap.settings
        cancelled = False
        try:
            cancelled = await self._check(state, snap, force)
        except WorkerError as exc:
            log.error("%s", exc)
            state.static = [
                Finding(
                    path=state.path,
                    range=Range.of(0, 0, 0, 0),
                    severity="error",
                    code="worker-unavailable",
                    message=f"ExportLens cannot export: {exc}",
                )
            ]
            self._publish(snap, {})
        except Exception:
            log.exception("checking %s failed", state.uri)
        self.ls.notify_checked(state.uri, version, cancelled=cancelled)

    async def _check(self, state: FileState, snap: Snapshot, force: bool) -> bool:
        """Check what needs it; True when the user cancelled."""
        doc, publish = snap.document, self._publish
        changed, state.changed_lines = state.changed_lines, set()
        self.publisher.config_errors(snap.project)
        if snap.skipped is not None:
            self._skip(state, snap)
            return False
        if not snap.trusted:
            state.entries.clear()
            state.static = trust.static_findings(doc)
            publish(snap, {})
            return False
        found = discovery_of(doc)
        if found.error is not None:
            # The last good results stay, marked stale, until the file parses again.
            state.static = [syntax_finding(doc.path, doc.source_text, found.error)]
            publish(snap, {}, stale=True)
            return False
        state.static = []
        keys = snap.keys
        for gone in set(state.entries) - set(keys):
            del state.entries[gone]
        if force and snap.uri.startswith("file:"):  # a buffer that is no file runs no other file
            state.placement = await asyncio.to_thread(self._placement, snap)
            snap = dataclasses.replace(snap, placement=state.placement)  # what its publishes prove through
            state.context = await self.ls.results.context(snap)
            if self.ls.results.restore(state, doc, keys):
                publish(snap)  # last session's results, marked, while they are re-checked
        cached = {name: entry.key for name, entry in state.entries.items() if not entry.cached}
        # the modules the edit touched, and the one under the cursor, go first (their results first)
        cursor = self.session.cursors.get(state.uri)
        focus = changed | ({cursor} if cursor is not None else set())
        first, rest = plan(found, keys, cached, state.placement.elsewhere(), focus, force)
        for batch in (first, rest):
            if batch and not await self._batch(state, snap, batch):
                return True
            if batch:
                publish(snap)
                self.ls.results.keep(state, keys)
        if not first and not rest:
            publish(snap)
        return False

    async def _know_library(self, state: FileState, force: bool) -> None:
        """Before the check's snapshot: the library folders of the file's interpreter (its probe,
        asked once per interpreter), which tell whether the file is the user's code."""
        session = self.session
        if not (session.trusted and state.uri.startswith("file:")):
            return
        settings, project = session.settings_for(state.path)
        if session.skipped(state.path, state.uri, settings, project) is not None:
            return
        if force:  # meanwhile: the probe, placing take ms, the worker seconds
            self.engines.start_worker(settings.python)
        await self.ls.results.learn_library(settings.python, session)

    def _skip(self, state: FileState, snap: Snapshot) -> None:
        """Not the user's code, excluded or disabled: nothing shown, nothing exported; said once."""
        if state.skipped != snap.skipped:
            log.info("not checking %s: %s", snap.path, snap.skipped)
        state.skipped = snap.skipped
        state.entries.clear()
        state.static = []
        self._publish(snap, {})
        self.ls.refresh_lenses()

    def _placement(self, snap: Snapshot) -> Placement:
        """Where the modules that the buffer's own check does not export are checked (check/plan.py)."""
        if not snap.settings.export_sites:
            return Placement()
        return place(snap.document, self.session.site_index, list(snap.roots))

    async def _batch(
        self, state: FileState, snap: Snapshot, batch: list[Subject], progress: bool = True
    ) -> bool:
        """Export `batch`, with a progress bar unless the caller shows its own; False when the
        user cancelled it."""
        doc, keys, version = snap.document, snap.keys, snap.document.version
        names = {t.name for t in batch}
        placement = state.placement
        state.running |= names
        state.cancelled -= names
        self.ls.refresh_lenses()
        engine = self.engines.engine(snap.settings.python)
        task = asyncio.current_task()

        def user_cancel() -> None:
            state.cancelled |= names
            if task is not None:
                task.cancel()

        for name in names:
            self._cancels[(state.uri, name)] = user_cancel

        def early(result: ModuleResult, findings: list[Finding]) -> None:
            """A module's first failure: shown now, completed when its job ends."""
            entry = state.entries.get(result.name)
            if result.name not in names or (entry is not None and entry.version > version):
                return
            here = [dataclasses.replace(f, module=f.module or result.name) for f in findings]
            here = [f for f in here if f.path == state.path]
            site = placement.sites.get(result.name)  # exported by another file's call (check/elsewhere.py)
            state.entries[result.name] = early_entry(entry, keys[result.name], result, here, version, site)
            self._publish(snap)

        try:
            message = "exporting " + ", ".join(sorted(names))
            bar = self.ls.export_progress(message, user_cancel) if progress else contextlib.nullcontext()
            async with bar:
                checked = await check_placed(engine, doc, snap.options(), placement, names, early)
        except asyncio.CancelledError:
            if not state.cancelled & names:
                raise  # superseded by a newer version
            log.info("export of %s cancelled by the user", ", ".join(sorted(names)))
            self._publish(snap)
            return False
        finally:
            state.running -= names
            for name in names:
                if self._cancels.get((state.uri, name)) is user_cancel:
                    del self._cancels[(state.uri, name)]
        for name, entry in _entries(checked, names, placement, keys, version).items():
            if name not in state.entries or state.entries[name].version <= version:
                state.entries[name] = entry
        self.ls.refresh_lenses()
        return True

    def _publish(self, snap: Snapshot, keys: Mapping[str, str] | None = None, stale: bool = False) -> None:
        """What the check found so far, for the version it checks (publishing.py)."""
        self.publisher.publish(self.session.refreshed(snap), keys, stale)

    # -- commands' exports ---------------------------------------------------------------
    async def export_now(self, uri: str, subject: Subject) -> ModuleEntry | Literal["cancelled"] | None:
        """Export one module of the buffer now (a command), cache and publish the result;
        "cancelled" when the user cancelled it (`cancel_export`). No progress bar of the server's:
        the command's caller shows its own, with its Cancel (a second one said the same)."""
        if not self.session.trusted:
            raise trust.refused()
        state, snap = self.session.file(uri), self.session.snapshot(uri)
        if not await self._batch(state, snap, [subject], progress=False):
            return "cancelled"
        self._publish(snap)
        return state.entries.get(subject.name)

    def cancel_export(self, uri: str, module: str) -> bool:
        """The user's Cancel of the running export of `module`: its job's child is killed, the
        worker lives on. False: none is running."""
        cancel = self._cancels.get((uri, module))
        if cancel is not None:
            cancel()
        return cancel is not None

    async def check_now(self, snap: Snapshot, options: CheckOptions, only: set[str]) -> FileResult:
        """The check of the modules `only` with `options` (a command's lowering), each by its route
        (check/routes.py): through the script that exports it, as the check does."""
        if not self.session.trusted:
            raise PermissionError("the workspace is untrusted: ExportLens runs no code")
        engine = self.engines.engine(snap.settings.python)
        return await check_placed(engine, snap.document, options, snap.placement, only)

    async def run_job(self, job: Job, python: str | None) -> JobOutcome:
        """One job in the worker of `python` (the file's settings'), outside any check: a save, a
        fix's proof."""
        return await self.engines.run(job, python)

    def in_background(self, work: Coroutine[Any, Any, T], name: str) -> asyncio.Task[T]:
        """Work that follows a check and outlives the request that started it (the fixes' proofs)."""
        task = asyncio.create_task(work, name=name)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    async def shutdown(self) -> None:
        checks = [s.task for s in self.session.files.values() if s.task is not None and not s.task.done()]
        for uri in list(self.session.files):
            self.close(uri)
        if checks:  # each reaps what it started (an interpreter probe) as it is cancelled
            await asyncio.wait(checks, timeout=1.0)
        await self.engines.close()


def _entries(
    checked: FileResult, names: set[str], placement: Placement, keys: Mapping[str, str], version: int
) -> dict[str, ModuleEntry]:
    """A batch's results and findings on the checked file, by module."""
    elsewhere = placement.elsewhere()
    fresh: dict[str, ModuleEntry] = {}
    for result in checked.modules:
        if result.status == "cancelled":
            continue  # superseded by another job for the same module (a command)
        entry = fresh.setdefault(
            result.name, ModuleEntry(keys[result.name], [], [], version, elsewhere.get(result.name))
        )
        entry.results.append(result)
    local = names - set(elsewhere)
    for finding in checked.diagnostics:
        if finding.path != checked.path:
            continue  # a culprit in another file: that file's buffer shows its own
        if finding.module is None and len(local) == 1:
            finding.module = next(iter(local))  # the file's own check: of its one module
        if finding.module in fresh:
            fresh[finding.module].findings.append(finding)
    return fresh
