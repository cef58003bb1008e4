"""The jobs one worker connection has in flight: their futures, early-report listeners and what
each has built. The worker's own pipes (process.py) and a daemon's socket (daemon_client.py) keep
the same book; only how a message arrives differs."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from ..worker.wire import protocol
from ..worker.wire.records import ModuleTree

log = logging.getLogger(__name__)

Listener = Callable[[protocol.JobAnswer], None]


class JobsInFlight:
    def __init__(self) -> None:
        self._futures: dict[int, asyncio.Future[protocol.JobAnswer]] = {}
        self._listeners: dict[int, Listener] = {}
        self._trees: dict[int, ModuleTree] = {}  # what each running job exports, once built

    def add(self, job_id: int, on_partial: Listener | None) -> asyncio.Future[protocol.JobAnswer]:
        future: asyncio.Future[protocol.JobAnswer] = asyncio.get_running_loop().create_future()
        self._futures[job_id] = future
        if on_partial is not None:
            self._listeners[job_id] = on_partial
        return future

    def built(self, job_id: int) -> ModuleTree | None:
        return self._trees.get(job_id)

    def unlisten(self, job_id: int) -> None:
        """Whoever cancels a job wants nothing more from it."""
        self._listeners.pop(job_id, None)

    def partial(self, message: protocol.PartialEvent) -> None:
        if "tree" in message:
            self._trees[message["id"]] = message["tree"]
        callback = self._listeners.get(message["id"])
        if callback is not None and "answer" in message:
            try:
                callback(message["answer"])
            except Exception:  # a listener's bug must not stop the results
                log.exception("handling an early report failed")

    def result(self, message: protocol.ResultEvent) -> None:
        self._listeners.pop(message["id"], None)
        self._trees.pop(message["id"], None)
        future = self._futures.pop(message["id"], None)
        if future and not future.done():
            future.set_result(message["answer"])

    def fail_all(self, why: str) -> None:
        """The connection is gone: each job still out is answered as crashed with the worker."""
        self._listeners.clear()
        futures, self._futures = self._futures, {}
        trees, self._trees = self._trees, {}
        for job_id, future in futures.items():
            if not future.done():
                answer: protocol.JobAnswer = {"status": "crashed", "worker_died": True, "reason": why}
                if job_id in trees:  # it was built: its export covers these classes (covered.py)
                    answer["tree"] = trees[job_id]
                future.set_result(answer)
