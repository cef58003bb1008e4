"""One job, in a forked child: load the buffer, build inputs, export, report.

Whatever the user's code does, the child reports a JSON result on its result
pipe and leaves with `os._exit`, skipping atexit handlers and non-daemon
threads the user may have started.  A failed export reports its first failure
at once (a line marked "partial") before the slower search for the others, so
the editor shows it without waiting; the last line on the pipe is the result.
"""

from __future__ import annotations

import os
import resource
import time
import warnings
from collections.abc import Callable
from typing import Any, NoReturn

from . import fake_cache, protocol
from .budget import Budget, OutOfBudget
from .isolation import isolate_child
from .records import FailureRecord, ModuleTree, PartInputs, Stage
from .records import Placement as PlacementRecord

# Said when an extra pass after the first failure ran out of the job's time (the first is kept).
OUT_OF_TIME = (
    "{what} ran out of the time limit and was stopped; what it found is shown. Raise `timeoutSeconds`"
    " (`--timeout`) to give it more, or switch it off with `allFailures: false` (`--first-failure-only`)"
)


def run_job_in_child(
    job: protocol.JobMessage, result_fd: int, output_fd: int, forked: bool = True
) -> NoReturn:
    """`forked`: from the worker, whose fake-tensor cache the entries this job adds go back to."""
    entered = time.monotonic()  # the worker subtracts its fork time: the cost of forking
    cache_start = fake_cache.size()
    try:
        isolate_child(output_fd, job["memory_mb"])

        def report_early(partial: protocol.JobAnswer) -> None:
            protocol.write_all(result_fd, protocol.encode({"partial": True, "answer": partial}))

        answer = execute(job, report_early, entered)
    except BaseException as exc:  # noqa: BLE001 - the child must always answer
        answer = _internal(exc, str(exc)[:2000])
    report: protocol.ChildReport = {"partial": False, "answer": answer, "entered": entered}
    if forked and (entries := fake_cache.added_since(cache_start)):
        report["fake_cache"] = entries
    if isinstance(answer.get("timings"), dict):  # misses of the worker's cache: 0 once it has this model's
        answer["timings"]["fake_cache_added"] = fake_cache.size() - cache_start
    try:
        data = protocol.encode(report)
    except (TypeError, ValueError) as exc:
        data = protocol.encode({"partial": False, "answer": _internal(exc, f"unserialisable result: {exc}")})
    try:
        protocol.write_all(result_fd, data)
    finally:
        os._exit(0)


def _internal(exc: BaseException, message: str) -> protocol.JobAnswer:
    return {
        "status": "failed",
        "failure": {"stage": "internal", "exc_type": type(exc).__name__, "message": message},
    }


def execute(
    job: protocol.JobMessage,
    report_early: Callable[[protocol.JobAnswer], None] | None = None,
    entered: float | None = None,
) -> protocol.JobAnswer:
    """Run the job; `report_early` gets the first failure before more are searched for."""
    import torch

    from .allfailures import more_failures
    from .devices import Placement, building, exporting, finish
    from .failure import describe_failure
    from .guard_sites import needs_guard_sites
    from .inputs import Attempt
    from .loader import load_module, parse
    from .part_inputs import record_parts, recorder_for
    from .sizing import build_sized
    from .summary import summarize

    if job["verify"]:  # a quick-fix's proof (fixes/, lsp/code_actions.py)
        from .verify import verify

        return verify(job, job["verify"])
    spec = job["target"]["inputs"]
    path, source = job["path"], job["source"]
    budget = Budget((entered or time.monotonic()) + float(job["timeout"] or 30.0))
    stage: Stage = "import"
    attempt: Attempt | None = None
    strict = bool(job["strict"])
    timings: dict[str, float] = {}  # seconds per stage, for benchmarks and logs
    clock = [time.perf_counter()]
    cpu_at_start = time.process_time()  # a spare child spent some warming up before its job
    placement = Placement(job.get("device") or "fake")  # devices.py: where the tensors go
    exported: ModuleTree | None = None

    def tick(stage_name: str) -> None:
        now = time.perf_counter()
        timings[stage_name] = now - clock[0]
        timings["cpu"] = time.process_time() - cpu_at_start  # the job's CPU so far: steadier under load
        timings["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        clock[0] = now

    try:
        tree = parse(path, source)
        with building(placement):  # the file's top level may already say `.cuda()`
            user_module = load_module(
                path, source, tree, job["module_name"], job["sys_path"], job["load_until"]
            )
            tick("load")
            stage = "inputs"
            attempt = build_sized(spec, user_module, path, tree, job["meta_above_mb"], placement)
            attempt.args, attempt.kwargs = finish(attempt.module, attempt.args, attempt.kwargs, placement)
        tick("inputs")
        exported = _tree(job, attempt.module)  # what is exported: every answer from here on says it
        if attempt.meta and not placement.fake:
            # Everything the export (and any re-run) creates stays on meta too.
            torch.set_default_device("meta")
        if job["strict"] is None and attempt.strict is not None:
            strict = attempt.strict
        if not isinstance(attempt.module, torch.nn.Module):
            return {
                "status": "skipped",
                "strict": strict,
                "reason": f"{type(attempt.module).__name__} is not a torch.nn.Module",
            }
        stage = "export"
        with warnings.catch_warnings(record=True) as caught, exporting(placement):
            warnings.simplefilter("always")
            program = torch.export.export(
                attempt.module,
                attempt.args,
                attempt.kwargs or None,
                dynamic_shapes=attempt.dynamic_shapes,
                strict=strict,
            )
        tick("export")
        summary = summarize(program, path, list(caught), view=bool(job.get("graph")))
        summary["weights"] = {"meta": attempt.meta, "bytes": attempt.weight_bytes}
        summary["placement"] = placement.describe()
        tick("summary")
        answer: protocol.JobAnswer = {
            "status": "exported",
            "strict": strict,
            "timings": timings,
            "summary": summary,
        }
        if exported is not None:
            answer["tree"] = exported
        if job["save_to"]:
            error = save_program(program, job["save_to"], attempt, placement.describe())
            if error is None:
                answer["saved"] = job["save_to"]
            else:
                answer["save_error"] = error
        if report_early is not None and (job.get("parts_from") or job.get("targets")):
            # The export's own result is final: shown before its parts' inputs are recorded (an
            # eager pass or two) and its lowerings run, which only add to it.
            report_early(answer.copy())
        # After the export and the save: neither sees the hooks, nor what an eager run changes
        # (a BatchNorm's running statistics in training mode).
        if found := record_parts(job, attempt, budget):
            answer["parts"] = found
        tick("parts")  # after the summary, before the answer: the benchmark's breakdown shows it
        if targets := job.get("targets"):
            from .lowering import lower

            answer["targets"] = lower(targets, program, attempt, path, budget)
            tick("targets")
        return answer
    except BaseException as exc:  # noqa: BLE001 - every failure becomes a record
        record = describe_failure(exc, stage, attempt, strict, path)
        record["placement"] = placement.describe()
        # Re-running user code after an exit / out-of-memory would only repeat it.
        rerun = (
            stage == "export"
            and attempt is not None
            and not isinstance(exc, (SystemExit, KeyboardInterrupt, MemoryError))
        )
        if rerun and needs_guard_sites(record["message"], list(record["frames"])):
            # torch names no line for most constraint violations: find it (one more export).
            located = time.perf_counter()
            try:
                from .guard_sites import guard_sites

                with budget.bounded(share=0.5):  # half of what is left: the search gets the rest
                    record["guard_sites"] = guard_sites(attempt, strict)
            except OutOfBudget:
                record["guard_sites_budget"] = OUT_OF_TIME.format(
                    what="finding the line that added the guard"
                )
            except BaseException as inner:  # noqa: BLE001 - locating is best effort
                record["guard_sites_error"] = f"{type(inner).__name__}: {inner}"[:500]
            record["locate_seconds"] = time.perf_counter() - located
        parts: list[PartInputs] = []
        if rerun and attempt is not None and not placement.fake:  # fake tensors cannot run eagerly
            from .eager import eager_verdict

            recorder = recorder_for(job, attempt)
            eager = eager_verdict(attempt, record, recorder)
            if eager is not None:
                record["eager"] = eager
            parts = record_parts(job, attempt, budget, recorder)
        tick("failure")
        search = rerun and job["all_failures"]
        if search and attempt is not None and attempt.meta and _data_dependent(record):
            # Meta weights have no values: the search (a retrace on real values) stops at this
            # very guard, after tracing the whole model again for nothing.
            record["more_skipped"] = "meta"
            search = False
        if search and placement.fake:
            # The search retraces with real values; fake accelerator tensors have none.
            record["more_skipped"] = "device"
            search = False
        if search:
            if report_early is not None:
                first: protocol.JobAnswer = {
                    "status": "failed",
                    "strict": strict,
                    "failure": record,
                    "timings": timings,
                }
                if exported is not None:
                    first["tree"] = exported
                report_early(first)
            try:
                record["more"], truncated = more_failures(exc, attempt, strict, path, budget)
                if truncated:
                    record["more_truncated"] = OUT_OF_TIME.format(what="the search for more failures")
            except BaseException as inner:  # noqa: BLE001 - the first failure is still reported
                record["more_error"] = f"{type(inner).__name__}: {inner}"[:500]
            tick("more_failures")
        failed: protocol.JobAnswer = {
            "status": "failed",
            "strict": strict,
            "failure": record,
            "timings": timings,
        }
        if exported is not None:
            failed["tree"] = exported
        if parts:
            failed["parts"] = parts
        return failed


def _tree(job: protocol.JobMessage, module: Any) -> ModuleTree | None:
    """What the job exports (module_tree.py); None when that cannot be told."""
    import torch

    from .module_tree import module_tree

    if not isinstance(module, torch.nn.Module):
        return None
    try:
        return module_tree(job, module)
    except Exception:  # noqa: BLE001 - naming the class is a courtesy: the job goes on without it
        return None


def _data_dependent(record: FailureRecord) -> bool:
    message = record["message"].lower()
    return (
        record.get("exc_type") == "GuardOnDataDependentSymNode"
        or "data-dependent" in message
        or ("data dependent" in message)
    )


def save_program(
    program: Any, target: str, attempt: Any, placement: PlacementRecord | None = None
) -> str | None:
    """`torch.export.save` (or the .onnx, for a `.onnx` target), except for meta-weight or fake-device
    builds (no real weights): why not saved."""
    import torch

    if placement and placement["fake"]:
        return (
            f"not saved: this model was built as fake tensors on {', '.join(placement['devices'])} (no"
            " weights exist on this machine). Set `exportlens.device` to `cpu` (`--device cpu`) to save a"
            " .pt2 with real weights on the CPU, or `real` on a machine with that device."
        )
    if attempt.meta:
        size = attempt.weight_bytes / 2**20
        return (
            f"not saved: this model's weights ({size:,.0f} MB) were never allocated; it was "
            "exported with meta weights to check it quickly. Raise the meta-weights threshold "
            "(`metaAboveMb` / `--meta-above`, 0 = never) to save a .pt2 with real weights."
        )
    if target.endswith(".onnx"):  # the "Save as ONNX" command
        from .lowering.onnx_file import save_onnx

        return save_onnx(program, target)
    try:
        torch.export.save(program, target)
    except Exception as exc:  # noqa: BLE001 - reported to the user as is
        return f"not saved: {type(exc).__name__}: {exc}"[:1000]
    return None
