"""The engines the server exports with: one per interpreter the files' settings name (a workspace
folder may set its own), created on first use (never when untrusted), closed when no setting
names their interpreter any more, and on shutdown. Only the scheduler runs jobs in them.

A running worker daemon of the interpreter (docs/daemon.md) is the engine's worker if the
`daemon` setting allows; else the engine starts its own, and a daemon for the next session once
that one is warm (engine.py). Any daemon failure falls back to a worker of the engine's own.

An export's time and memory limits are the file's own (its folder's settings, its pyproject.toml):
each job carries them (check/jobs.py), so one worker serves files with different limits. The
engine's own options are the window's, for a job that carries none.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from ..config.settings import Settings
from ..engine import Engine, EngineOptions, Job, JobOutcome
from .session import Session


class EngineHost:
    def __init__(self, session: Session) -> None:
        self.session = session
        self._engines: dict[str | None, Engine] = {}  # interpreter (None: the server's) -> its engine

    def engine(self, python: str | None) -> Engine:
        if not self.session.trusted:
            raise RuntimeError("untrusted workspace: the engine must not run")
        if python not in self._engines:
            window = self.session.settings
            self._engines[python] = Engine(
                EngineOptions(
                    python=python,
                    timeout=window.timeout_seconds,
                    memory_mb=window.memory_limit_mb,
                    daemon=window.daemon,
                    daemon_idle=window.daemon_idle_seconds,
                    daemon_start=False,  # the first check never waits for a new daemon (engine.py)
                )
            )
        return self._engines[python]

    @property
    def started(self) -> Engine | None:
        """The window's interpreter's engine if it started, else any started one (status)."""
        return self._engines.get(self.session.settings.python) or next(iter(self._engines.values()), None)

    @property
    def jobs_sent(self) -> int:
        return sum(e.jobs_sent for e in self._engines.values())

    def start_worker(self, python: str | None) -> None:
        """Start the worker without waiting for it; a failure to start is reported by the export
        that waits for it next (engine.run raises it again)."""
        started = asyncio.ensure_future(self.engine(python).worker())
        started.add_done_callback(lambda done: done.cancelled() or done.exception())

    async def run(
        self, job: Job, python: str | None, on_partial: Callable[[JobOutcome], None] | None = None
    ) -> JobOutcome:
        return await self.engine(python).run(job, on_partial)

    async def settings_changed(self, new: Settings, in_use: set[str | None]) -> None:
        """The window's limits apply to the next job that carries none; an engine whose
        interpreter no setting in `in_use` names any more, every engine without trust, and one
        using a daemon once `daemon` is off (it may have started before the settings came) close."""
        for python, engine in list(self._engines.items()):
            engine.options.timeout = new.timeout_seconds
            engine.options.memory_mb = new.memory_limit_mb
            engine.options.daemon, engine.options.daemon_idle = new.daemon, new.daemon_idle_seconds
            off = not new.daemon and engine.daemon is not None
            if python not in in_use or not self.session.trusted or off:
                del self._engines[python]
                await engine.close()

    async def close(self) -> None:
        engines, self._engines = list(self._engines.values()), {}
        for engine in engines:
            await engine.close()
