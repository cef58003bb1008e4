"""When to check what: debounce, supersede, publish only current results.

- didOpen / didSave / the re-check command check every module, cache ignored (imported files
  may have changed on disk), and look export sites elsewhere up again; didChange (runOn "type")
  checks after `debounceMs` what policy.py says, the touched modules first.
- A newer version cancels the older one's task; the engine cancels its jobs.
- A failed module's first failure is published as soon as the worker has it;
  its other failures follow when the search for them ends.
- Results are published with the document version they were computed on, and dropped
  when the buffer has moved on.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from ..check import CheckOptions, EarlyReport, check_document
from ..discovery import Target
from ..document import Document
from ..engine import Engine
from ..engine.process import WorkerError
from ..findings import Finding, ModuleResult, Range
from ..static_findings import syntax_finding
from ..textpos import utf16_len
from . import trust
from .elsewhere import check_elsewhere, export_sites, parent_files
from .policy import plan
from .progress import ExportProgress
from .state import FileState, ModuleEntry

if TYPE_CHECKING:
    from .app import ExportLensServer

log = logging.getLogger("exportlens.lsp")
Checked = tuple[list[ModuleResult], list[Finding]]  # a batch's module results and findings
CHECKED = "exportlens/fileChecked"  # notification: {uri, version, cancelled} once a check is over


class Scheduler:
    def __init__(self, ls: ExportLensServer) -> None:
        self.ls = ls
        # (uri, module) -> what the user's Cancel of that module's running export calls
        self._cancels: dict[tuple[str, str], Callable[[], None]] = {}

    def schedule(self, uri: str, *, delay: float = 0.0, force: bool = False) -> None:
        state = self.ls.file(uri)
        if state.task is not None and not state.task.done():
            state.task.cancel()
        version = self.ls.doc_version(uri)
        state.task = asyncio.create_task(
            self._run(state, version, delay, force), name=f"check {uri}@{version}"
        )

    def close(self, uri: str) -> None:
        state = self.ls.files.pop(uri, None)
        if state is not None and state.task is not None:
            state.task.cancel()

    async def _run(self, state: FileState, version: int, delay: float, force: bool) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        if self.ls.doc_version(state.uri) != version:
            return
        doc = self.ls.document(state.uri)
        cancelled = False
        try:
            cancelled = await self._check(state, doc, force)
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
            self.publish(state, doc, {})
        except Exception:
            log.exception("checking %s failed", state.uri)
        self.ls.notify_checked(state.uri, version, cancelled=cancelled)

    async def _check(self, state: FileState, doc: Document, force: bool) -> bool:
        """Check what needs it; True when the user cancelled."""
        changed, state.changed_lines = state.changed_lines, set()
        if not self.ls.trusted:
            state.entries.clear()
            state.static = trust.static_findings(doc)
            self.publish(state, doc, {})
            return False
        found = doc.discovery
        if found.error is not None:
            # The last good results stay, marked stale, until the file parses again.
            state.static = [syntax_finding(doc.path, doc.source_text, found.error)]
            self.publish(state, doc, {}, stale=True)
            return False
        state.static = []
        keys = doc.module_keys(self.ls.settings.results_key())
        for gone in set(state.entries) - set(keys):
            del state.entries[gone]
        if force and state.uri.startswith("file:"):  # a buffer that is no file runs no other file
            self._start_worker()  # meanwhile: the site search and the probe take ms, the worker seconds
            state.sites, state.parents = await asyncio.to_thread(self._elsewhere, found.targets, state.path)
            state.context = await self.ls.results.context(doc)
            if self.ls.results.restore(state, doc, keys):
                self.publish(state, doc, keys)  # last session's results, marked, while they are re-checked
        cached = {name: entry.key for name, entry in state.entries.items() if not entry.cached}
        first, rest = plan(found, keys, cached, state.sites | state.parents, changed, force)
        for batch in (first, rest):
            if batch and not await self._batch(state, doc, batch, keys):
                return True
            if batch:
                self.publish(state, doc, keys)
                self.ls.results.keep(state, keys)
        if not first and not rest:
            self.publish(state, doc, keys)
        return False

    def _start_worker(self) -> None:
        """Start the worker without waiting for it; a failure to start is reported by the export
        that waits for it next (engine.run raises it again)."""
        started = asyncio.ensure_future(self.ls.engine().worker())
        started.add_done_callback(lambda done: done.cancelled() or done.exception())

    def _elsewhere(self, targets: list[Target], path: str) -> tuple[dict[str, str], dict[str, str]]:
        """(export sites, parent files) of the modules of `path` (elsewhere.py)."""
        if not self.ls.settings.export_sites:
            return {}, {}
        index, roots = self.ls.site_index, self.ls.roots()
        sites = export_sites(index, roots, targets, path)
        return sites, parent_files(index, roots, targets, path, sites)

    async def _batch(
        self,
        state: FileState,
        doc: Document,
        batch: list[Target],
        keys: dict[str, str],
        progress: bool = True,
    ) -> bool:
        """Export `batch`, with a progress bar unless the caller shows its own; False when the
        user cancelled it."""
        version = doc.version
        names = {t.name for t in batch}
        local = {t.name for t in batch if t.name not in state.sites and t.name not in state.parents}
        elsewhere = sorted(set(state.sites.values()) | set(state.parents.values()))
        state.running |= names
        state.cancelled -= names
        self.ls.refresh_lenses()
        engine = self.ls.engine()
        options = self.ls.check_options()
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
            site = state.sites.get(result.name)  # exported by another file's call (elsewhere.py)
            state.entries[result.name] = ModuleEntry(keys[result.name], [result], here, version, site)
            self.publish(state, doc, keys)

        found: list[Checked] = []
        try:
            message = "exporting " + ", ".join(sorted(names))
            bar = ExportProgress(self.ls, message, user_cancel) if progress else contextlib.nullcontext()
            async with bar:
                jobs = []
                if local:
                    jobs.append(self._local(engine, doc, options, local, early))
                for file in elsewhere:  # another file's check: an export site, or a parent's
                    exported = [t for t in batch if state.sites.get(t.name) == file]
                    parts = [t for t in batch if state.parents.get(t.name) == file]
                    if exported or parts:
                        jobs.append(check_elsewhere(engine, doc, options, file, exported, parts, early))
                found = list(await asyncio.gather(*jobs))
        except asyncio.CancelledError:
            if not state.cancelled & names:
                raise  # superseded by a newer version
            log.info("export of %s cancelled by the user", ", ".join(sorted(names)))
            self.publish(state, doc, keys)
            return False
        finally:
            state.running -= names
            for name in names:
                if self._cancels.get((state.uri, name)) is user_cancel:
                    del self._cancels[(state.uri, name)]
        fresh: dict[str, ModuleEntry] = {}
        for results, findings in found:
            for result in results:
                if result.status == "cancelled":
                    continue  # superseded by another job for the same module (a command)
                site = state.sites.get(result.name) or state.parents.get(result.name)
                fresh.setdefault(
                    result.name, ModuleEntry(keys[result.name], [], [], version, site)
                ).results.append(result)
            for finding in findings:
                if finding.module in fresh:
                    fresh[finding.module].findings.append(finding)
        for name, entry in fresh.items():
            if name not in state.entries or state.entries[name].version <= version:
                state.entries[name] = entry
        self.ls.refresh_lenses()
        return True

    async def _local(
        self, engine: Engine, doc: Document, options: CheckOptions, names: set[str], early: EarlyReport
    ) -> Checked:
        result = await check_document(engine, doc, options, only=names, early=early)
        findings = [f for f in result.diagnostics if f.path == doc.path]
        for f in findings:
            if f.module is None:
                f.module = next(iter(names)) if len(names) == 1 else f.module
        return result.modules, findings

    async def export_now(self, uri: str, target: Target) -> ModuleEntry | Literal["cancelled"] | None:
        """Export one module of the buffer now (a command), cache and publish the result;
        "cancelled" when the user cancelled it (`cancel_export`). No progress bar of the server's:
        the command's caller shows its own, with its Cancel (a second one said the same)."""
        if not self.ls.trusted:
            raise trust.refused()
        state, doc = self.ls.file(uri), self.ls.document(uri)
        keys = doc.module_keys(self.ls.settings.results_key())
        if not await self._batch(state, doc, [target], keys, progress=False):
            return "cancelled"
        self.publish(state, doc, keys)
        return state.entries.get(target.name)

    def cancel_export(self, uri: str, module: str) -> bool:
        """The user's Cancel of the running export of `module`: its job's child is killed, the
        worker lives on. False: none is running."""
        cancel = self._cancels.get((uri, module))
        if cancel is not None:
            cancel()
        return cancel is not None

    def publish(self, state: FileState, doc: Document, keys: dict[str, str], stale: bool = False) -> None:
        """Publish for `doc`; `stale`: also every cached module's findings, marked stale."""
        version = doc.version
        if self.ls.doc_version(state.uri) != version or state.uri not in self.ls.files:
            return  # the buffer moved on (or closed): these results are for an older text
        findings = list(state.static)
        old: list[Finding] = []
        restored: list[Finding] = []
        for name, entry in state.entries.items():
            if keys.get(name) == entry.key:
                (restored if entry.cached else findings).extend(entry.findings)
            elif stale:
                old += [f for f in entry.findings if f.path == state.path]
        if old:
            old = [f for f in old if inside(f.range, doc.text)]
        # A module's early first failure is often all it has: its final result changes nothing.
        seen = repr((version, findings, old, restored))
        if seen == state.last_published:
            return
        state.last_published = seen
        self.ls.publish(doc, findings, stale=old, cached=restored)


def inside(where: Range, source: str) -> bool:
    """`where` lies inside the document (a stale finding whose lines are gone is dropped)."""
    lines = re.split(r"\r\n|\r|\n", source)  # LSP's lines
    ends = [where.start, where.end]
    return all(0 <= p.line < len(lines) and 0 <= p.character <= utf16_len(lines[p.line]) for p in ends)
