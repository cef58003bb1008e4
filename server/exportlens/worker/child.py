"""One job, in a forked child: load the buffer, build inputs, export, report.

Whatever the user's code does, the child reports a JSON result on its result
pipe and leaves with `os._exit`, skipping atexit handlers and non-daemon
threads the user may have started.
"""

from __future__ import annotations

import os
import time
import warnings
from typing import Any, NoReturn

from . import protocol
from .isolation import isolate_child


def run_job_in_child(job: dict[str, Any], result_fd: int, output_fd: int) -> NoReturn:
    try:
        isolate_child(output_fd, job.get("memory_mb"))
        result = execute(job)
    except BaseException as exc:  # noqa: BLE001 - the child must always answer
        result = {"status": "failed", "failure": {"stage": "internal", "exc_type": type(exc).__name__,
                                                   "message": str(exc)[:2000]}}
    try:
        data = protocol.encode(result)
    except (TypeError, ValueError) as exc:
        data = protocol.encode({"status": "failed", "failure": {
            "stage": "internal", "exc_type": type(exc).__name__, "message": f"unserialisable result: {exc}"}})
    try:
        protocol.write_all(result_fd, data)
    finally:
        os._exit(0)


def execute(job: dict[str, Any]) -> dict[str, Any]:
    import torch

    from .allfailures import more_failures
    from .failure import describe_failure
    from .inputs import Attempt, build
    from .loader import load_module
    from .summary import summarize

    spec = job["target"]["inputs"]
    path, source = job["path"], job["source"]
    stage = "import"
    attempt: Attempt | None = None
    strict = bool(job.get("strict"))
    started = time.perf_counter()
    try:
        user_module = load_module(
            path, source, job["module_name"], job.get("sys_path", []), job.get("load_until")
        )
        stage = "inputs"
        attempt = build(spec, user_module, path, source)
        if job.get("strict") is None and attempt.strict is not None:
            strict = attempt.strict
        if not isinstance(attempt.module, torch.nn.Module):
            return {"status": "skipped", "strict": strict,
                    "reason": f"{type(attempt.module).__name__} is not a torch.nn.Module"}
        stage = "export"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            program = torch.export.export(
                attempt.module,
                attempt.args,
                attempt.kwargs or None,
                dynamic_shapes=attempt.dynamic_shapes,
                strict=strict,
            )
        export_seconds = time.perf_counter() - started
        if job.get("save_to"):
            torch.export.save(program, job["save_to"])
        return {
            "status": "exported",
            "strict": strict,
            "class": type(attempt.module).__name__,
            "export_seconds": export_seconds,
            "summary": summarize(program, path, list(caught)),
        }
    except BaseException as exc:  # noqa: BLE001 - every failure becomes a record
        record = describe_failure(exc, stage, attempt, strict, path)
        if stage == "export" and job.get("all_failures", True):
            record["more"] = more_failures(exc, attempt, strict, path)
        return {"status": "failed", "strict": strict, "failure": record}
