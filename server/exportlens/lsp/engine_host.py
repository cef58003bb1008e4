"""The engine the server exports with: created on first use (never when untrusted), its limits
and interpreter following the settings, closed on shutdown. Only the scheduler runs jobs in it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from ..config.settings import Settings
from ..engine import Engine, EngineOptions, Job, JobOutcome
from .session import Session


class EngineHost:
    def __init__(self, session: Session) -> None:
        self.session = session
        self._engine: Engine | None = None

    def engine(self) -> Engine:
        if not self.session.trusted:
            raise RuntimeError("untrusted workspace: the engine must not run")
        if self._engine is None:
            # one worker for every file: the limits of the (first) workspace folder's project
            settings = self.session.settings_for(self.session.roots()[0])[0]
            self._engine = Engine(
                EngineOptions(
                    python=settings.python,
                    timeout=settings.timeout_seconds,
                    memory_mb=settings.memory_limit_mb,
                )
            )
        return self._engine

    @property
    def started(self) -> Engine | None:
        return self._engine

    def start_worker(self) -> None:
        """Start the worker without waiting for it; a failure to start is reported by the export
        that waits for it next (engine.run raises it again)."""
        started = asyncio.ensure_future(self.engine().worker())
        started.add_done_callback(lambda done: done.cancelled() or done.exception())

    async def run(self, job: Job, on_partial: Callable[[JobOutcome], None] | None = None) -> JobOutcome:
        return await self.engine().run(job, on_partial)

    async def settings_changed(self, old: Settings, new: Settings) -> None:
        """New limits apply to the next export; another interpreter, or no trust, closes the engine."""
        if self._engine is None:
            return
        self._engine.options.timeout = new.timeout_seconds
        self._engine.options.memory_mb = new.memory_limit_mb
        if old.python != new.python or not self.session.trusted:
            await self.close()

    async def close(self) -> None:
        if self._engine is not None:
            engine, self._engine = self._engine, None
            await engine.close()
