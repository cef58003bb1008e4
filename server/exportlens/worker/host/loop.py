"""The worker's select loop: jobs in from stdin, one child per job, its reports relayed.

It never runs user code itself, so it stays healthy whatever a job does.  One
single-threaded select loop reads jobs from stdin, drains each child's output
and result pipes, enforces timeouts and reaps children: no threads, so forking
is safe.  The warm-up (warmup.py) runs a step at a time while nothing runs.  Once warm and
quiet it keeps one warm spare child for the next job (spare.py).
A child's early reports are passed on as they come; its final answer is sent
as soon as it is complete, and the child is killed and reaped after, never
waited for.
"""

from __future__ import annotations

import os
import select
import sys
import time

from ..core.isolation import sweep_strays
from ..job import fake_cache
from ..wire import protocol
from .children import (
    OUTPUT_KEEP,
    Running,
    can_fork,
    child_exited,
    crashed_after_answer,
    describe_status,
    kill_group,
    spawn_child,
    timed_out,
)
from .spare import QUIET, Spares
from .stack_at_stop import ask_stack, parse_stack
from .warmup import WarmUp

WARM_BY = 5.0  # s after "ready": from then on the warm-up runs between any two jobs


class Worker:
    def __init__(self, proto_fd: int, max_parallel: int) -> None:
        self.proto_fd = proto_fd
        self.max_parallel = max_parallel
        self.queue: list[protocol.JobMessage] = []
        self.running: dict[int, Running] = {}  # by job id
        self.stdin = protocol.LineReader()
        self.reaping: set[int] = set()  # children that answered or were dropped, not yet reaped
        # A child forked and warmed ahead of the next job (spare.py): fork start only.
        enabled = can_fork() and os.environ.get("EXPORTLENS_SPARE", "1") != "0"
        self.spares = Spares(proto_fd, enabled, self.reaping)
        self.warmup: WarmUp | None = None  # set once torch is imported
        self.last_job = time.monotonic()  # when the last job came: spares wait for a quiet spell
        self.ready_at = self.last_job  # when it said it is ready (warmup.py: WarmUp)

    # -- messages -----------------------------------------------------------
    def send(self, message: protocol.FromWorker) -> None:
        protocol.write_all(self.proto_fd, protocol.encode(message))

    def handle(self, line: bytes) -> None:
        try:
            message = protocol.decode_to_worker(line)
        except protocol.ProtocolError as exc:  # the engine's bug: said, not fatal to other jobs
            print(f"exportlens worker: {exc}", file=sys.stderr)
            return
        if message["op"] == "job":
            self.queue.append(message["job"])
            self.last_job = time.monotonic()
        elif message["op"] == "cancel":
            self.cancel(message["id"])

    def cancel(self, job_id: int) -> None:
        for queued in list(self.queue):
            if queued["id"] == job_id:
                self.queue.remove(queued)
                self.send(
                    {"event": "result", "id": job_id, "answer": {"status": "cancelled", "seconds": 0.0}}
                )
        run = self.running.get(job_id)
        if run and not run.killed:
            run.killed = "cancelled"
            kill_group(run.pid)

    # -- children -----------------------------------------------------------
    def start_next(self) -> None:
        while self.queue and len(self.running) < self.max_parallel:
            job = self.queue.pop(0)
            self.running[job["id"]] = self.take_spare(job) or self.fork(job)

    def take_spare(self, job: protocol.JobMessage) -> Running | None:
        now = time.monotonic()
        taken = self.spares.take(job)
        if taken is None:
            return None
        return Running.began(job, *taken, now)

    def reap(self, wait: float = 0.0) -> None:
        """Reap the children in `reaping` that are gone; for up to `wait` s, until all are."""
        deadline = time.monotonic() + wait
        while True:
            for pid in list(self.reaping):
                try:
                    if os.waitpid(pid, os.WNOHANG)[0] == 0:
                        continue
                except ChildProcessError:
                    pass
                self.reaping.discard(pid)
            if not self.reaping or time.monotonic() >= deadline:
                return
            time.sleep(0.01)

    def fork(self, job: protocol.JobMessage) -> Running:
        result_r, result_w = os.pipe()
        output_r, output_w = os.pipe()
        if can_fork():
            from ..job.child import run_job_in_child
            from ..job.loader import prime

            prime(job["path"], job["source"], job["load_until"])  # once per text, for every job on it
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:  # child: never returns
                os.close(result_r)
                os.close(output_r)
                os.close(self.proto_fd)
                run_job_in_child(job, result_w, output_w)
        else:
            pid = spawn_child(job, result_w, output_w)
        os.close(result_w)
        os.close(output_w)
        for fd in (result_r, output_r):
            os.set_blocking(fd, False)
        return Running.began(job, pid, result_r, output_r, time.monotonic())

    def drain(self, run: Running, fd: int) -> bool:
        """Read what is there; False at end of file."""
        try:
            data = os.read(fd, 1 << 16)
        except BlockingIOError:
            return True
        if not data:
            return False
        if fd == run.result_fd:
            run.result += data
            self.forward_partials(run)
        else:
            room = OUTPUT_KEEP - len(run.output)
            run.output += data[:room]
            run.output_dropped += max(0, len(data) - room)
        return True

    @staticmethod
    def stop_with_stack(run: Running) -> None:
        """Kill a child whose time is up, after asking where it was (stack_at_stop.py)."""
        if run.output_fd in run.open_fds:
            before, dump = ask_stack(run.pid, run.output_fd)
            room = OUTPUT_KEEP - len(run.output)
            run.output += before[:room]
            run.stopped_at = parse_stack(dump)
        kill_group(run.pid)

    def forward_partials(self, run: Running) -> None:
        """Pass on the child's early reports (complete lines marked "partial") as they come."""
        while (end := run.result.find(b"\n")) >= 0:
            report = protocol.decode_report(bytes(run.result[:end]))
            if not report["partial"]:
                return  # the final result: sent by `finish`
            del run.result[: end + 1]
            run.stage = report.get("doing", run.stage)
            run.strict = report.get("strict", run.strict)
            if "limit" in report and run.clock is not None:
                run.clock.timeout = report["limit"]  # the module's passes fit its export's cost
                run.deadline = run.started + report["limit"]
                self.send({"event": "partial", "id": run.job["id"], "limit": report["limit"]})
            if "tree" in report and run.tree is None:
                run.tree = report["tree"]
                self.send({"event": "partial", "id": run.job["id"], "tree": run.tree})
            answer = report.get("answer")
            if answer is None:
                continue
            run.fallback = answer
            if not run.killed and not report.get("keep"):
                self.send({"event": "partial", "id": run.job["id"], "answer": answer})

    def finish(self, run: Running) -> None:
        """The child answered, exited or was killed: report, and end what it leaves behind."""
        # An answer is the child's last write: what it printed is already in the pipe.
        linger = 0.0 if run.answered() else 0.05
        for fd in (run.result_fd, run.output_fd):
            while fd in run.open_fds and select.select([fd], [], [], linger)[0]:
                if not self.drain(run, fd):
                    break
            os.close(fd)
        answered = run.answered()  # what was still in the pipe may have completed it
        kill_group(run.pid, include_leader=run.exit_status is None)  # and grandchildren it left behind
        status = 0
        if run.exit_status is not None:
            status = run.exit_status
        elif answered or run.killed:
            self.reaping.add(run.pid)  # reaped later: its exit status says nothing more
        else:
            status = os.waitpid(run.pid, 0)[1]
        answer = self.answer(run, answered, status)
        if run.tree is not None and "tree" not in answer and answer["status"] != "cancelled":
            answer["tree"] = run.tree  # stopped or crashed after building: its export still covers these
        answer["seconds"] = time.monotonic() - run.started
        answer["output"] = run.output.decode("utf-8", errors="replace")
        answer["output_dropped"] = run.output_dropped
        self.send({"event": "result", "id": run.job["id"], "answer": answer})
        if run.fake_cache is not None:  # after the answer is on its way: the next child is forked with them
            fake_cache.merge(run.fake_cache)

    @staticmethod
    def answer(run: Running, answered: bool, status: int) -> protocol.JobAnswer:
        """The child's answer, or how it ended without one."""
        if run.killed == "timeout":
            return timed_out(run)
        if run.killed is not None:
            return {"status": run.killed}
        report = protocol.decode_report(bytes(run.result)) if answered else {"partial": False}
        if "answer" not in report:
            exit_info = describe_status(status)
            how = str(exit_info.get("signal") or f"exit status {exit_info.get('code')}")
            return crashed_after_answer(run, how) or {"status": "crashed", "exit": exit_info}
        answer = report["answer"]
        run.fake_cache = report.get("fake_cache")
        if "entered" in report and "timings" in answer:
            answer["timings"]["fork"] = report["entered"] - run.started
        return answer

    # -- loop -----------------------------------------------------------------
    def loop(self) -> None:
        os.set_blocking(0, False)
        stdin_open = True
        while stdin_open or self.running or self.queue:
            sweep_strays({run.pid for run in self.running.values()} | self.spares.pids())
            self.reap()
            self.start_next()
            warmed = self.warm_a_little()
            spare_in = None
            if not warmed and self.warmup is not None and self.warmup.done:
                quiet_for = time.monotonic() - self.last_job
                spare_in = self.spares.keep(not self.running and not self.queue, quiet_for)
            fds = ([0] if stdin_open else []) + self.spares.fds()
            for run in self.running.values():
                fds += list(run.open_fds)
            now = time.monotonic()
            soon = [0.05] if self.reaping else []  # killed children: reap them promptly
            if warmed:
                soon.append(0.0)  # a job may have come meanwhile
            elif spare_in is not None:
                soon.append(spare_in)
            elif self.warmup is not None and not self.warmup.done and not self.running:
                soon.append(self.warm_in())  # the next warm-up step
            wait = min([r.deadline - now for r in self.running.values()] + [1.0] + soon)
            ready = select.select(fds, [], [], max(wait, 0.0))[0]
            self.spares.on_ready(ready)
            if 0 in ready:
                try:
                    data = os.read(0, 1 << 16)
                except BlockingIOError:
                    data = b"?"
                if not data:
                    # the engine went away: end what runs, start none of the queue (no one reads it)
                    stdin_open = False
                    self.queue.clear()
                    for run in self.running.values():
                        run.killed = run.killed or "cancelled"
                        kill_group(run.pid)
                elif data != b"?":
                    for line in self.stdin.feed(data):
                        self.handle(line)
            for run in list(self.running.values()):
                for fd in list(run.open_fds):
                    if fd in ready and not self.drain(run, fd):
                        run.open_fds.discard(fd)
                if time.monotonic() > run.deadline and not run.killed and run.time_is_up(time.monotonic()):
                    run.killed = "timeout"
                    self.stop_with_stack(run)
                # A child's grandchildren may hold its pipes open: once it has
                # answered, exited or been killed, stop waiting for end of file.
                if run.answered() or not run.open_fds or child_exited(run):
                    del self.running[run.job["id"]]
                    self.finish(run)

        self.spares.drop()
        self.reap(wait=1.0)  # what it killed is gone by the time the engine sees it exit

    def warm_a_little(self) -> bool:
        """One warm-up step when nothing runs or waits (a step blocks the loop: no report, kill
        or reap meanwhile) and either no job came for `QUIET` s (a job sent just after "ready",
        or the next batch of an opened file, would wait for it) or the worker has been up
        `WARM_BY` s (jobs one after another, never quiet, would all run cold): True if one ran."""
        if self.warmup is None or self.warmup.done:
            return False
        if self.queue or self.running or self.warm_in() > 0:
            return False
        self.warmup.step()
        return True

    def warm_in(self) -> float:
        """Seconds until a warm-up step may run in an idle worker."""
        now = time.monotonic()
        return min(QUIET - (now - self.last_job), WARM_BY - (now - self.ready_at))
