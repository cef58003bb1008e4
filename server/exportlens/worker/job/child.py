"""One job, in a forked child: load the buffer, build inputs, export, report.

Whatever the user's code does, the child reports a JSON result on its result
pipe and leaves with `os._exit`, skipping atexit handlers and non-daemon
threads the user may have started.  Before it, lines marked "partial" tell the
worker each pass the child starts and the answer it has so far: a failed export's
first failure before the passes after it (after_failure.py), shown before the
slower search for the others, so the editor shows it without waiting, and kept by
the worker if the child is stopped at its time limit.  The last line is the result.
"""

from __future__ import annotations

import contextlib
import os
import resource
import time
import warnings
from typing import Any, NoReturn, cast

from ..core.budget import Budget
from ..core.isolation import isolate_child
from ..wire import protocol
from ..wire.records import DecodeStep, ModuleTree, PartInputs, Stage
from ..wire.records import Placement as PlacementRecord
from . import fake_cache
from .after_failure import after_failure, yield_cpu


class Reports:
    """What the child tells the worker before its answer (protocol.ChildReport); nothing without a pipe."""

    def __init__(self, fd: int | None = None) -> None:
        self.fd = fd

    def doing(self, step: str, strict: bool | None = None) -> None:
        """The pass it starts: a timeout says which one ran out."""
        report: dict[str, Any] = {"partial": True, "doing": step}
        if strict is not None:
            report["strict"] = strict
        self._write(report)

    def limit(self, budget: Budget) -> None:
        """The job's limit grown to fit the module (`Budget.scaled`): the worker stops it by that."""
        if (seconds := budget.scaled()) is not None:
            self._write({"partial": True, "limit": seconds})

    def exports(self, tree: ModuleTree) -> None:
        """The class the job exports and its parts, as soon as it is built: kept by the worker, so a
        child stopped or crashed later still tells which classes its export covers (covered.py)."""
        self._write({"partial": True, "tree": tree})

    def early(self, answer: dict[str, Any], keep: bool = False) -> None:
        """An answer before the last: shown at once, or (`keep`) reported only if the child is stopped."""
        self._write({"partial": True, "answer": answer, "keep": keep})

    def _write(self, report: dict[str, Any]) -> None:
        if self.fd is not None:
            protocol.write_all(self.fd, protocol.encode(cast(protocol.ChildReport, report)))


def run_job_in_child(
    job: protocol.JobMessage, result_fd: int, output_fd: int, forked: bool = True
) -> NoReturn:
    """`forked`: from the worker, whose fake-tensor cache the entries this job adds go back to."""
    entered = time.monotonic()  # the worker subtracts its fork time: the cost of forking
    cache_start = fake_cache.size()
    try:
        isolate_child(output_fd, job["memory_mb"])
        # A daemon's client's folder and environment: user code reads files and variables as
        # the one-off worker of that client would have let it.
        if cwd := job.get("cwd"):
            with contextlib.suppress(OSError):
                os.chdir(cwd)
        if (env := job.get("env")) is not None:
            os.environ.clear()
            os.environ.update(env)
        answer = execute(job, Reports(result_fd), entered)
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
    job: protocol.JobMessage, reports: Reports | None = None, entered: float | None = None
) -> protocol.JobAnswer:
    """Run the job, telling `reports` each pass it starts and its answers before the last one."""
    import torch

    from ..capture import layer_sites
    from ..capture.device_words import needs_redirect
    from ..capture.failure import describe_failure
    from ..capture.narrowing import locate as locate_narrowing
    from ..capture.narrowing import narrowing
    from ..capture.summary import summarize
    from ..core.attempt import Attempt
    from ..parts.part_inputs import record_parts
    from .compiled import without_compile
    from .devices import Placement, building, exporting, finish
    from .loader import load_module, parse
    from .sizing import build_sized, meta_weights

    if job["verify"]:  # a quick-fix's proof (fixes/, lsp/code_actions.py)
        from .verify import verify

        return verify(job, job["verify"])
    reports = reports or Reports()
    spec = job["target"]["inputs"]
    path, source = job["path"], job["source"]
    budget = Budget(float(job["timeout"] or 30.0), entered)  # its CPU counts from here: not a spare's
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
        # The file's top level may already say `.cuda()`; where each dropout is built is kept.
        # Loading never compiles (a compile check traces the module after): compiled.py
        redirect = needs_redirect(source, tree, job["sys_path"])
        placed = building(placement) if redirect else contextlib.nullcontext()
        with placed, layer_sites.recording(), without_compile():
            user_module = load_module(
                path, source, tree, job["module_name"], job["sys_path"], job["load_until"]
            )
            tick("load")
            stage = "inputs"
            reports.doing("inputs")
            attempt = build_sized(spec, user_module, path, tree, job["meta_above_mb"], placement)
            code_meta = not attempt.meta and meta_weights(attempt.module)  # before `finish` fakes them
            attempt.args, attempt.kwargs = finish(attempt.module, attempt.args, attempt.kwargs, placement)
        tick("inputs")
        exported = _tree(job, attempt.module)  # what is exported: every answer from here on says it
        if exported is not None:
            reports.exports(exported)
        if attempt.meta and not placement.fake:
            # Everything the export (and any re-run) creates stays on meta too.
            torch.set_default_device("meta")
        if job["strict"] is None and attempt.strict is not None:
            strict = attempt.strict
        if (compiled := job.get("compile")) and callable(attempt.module):  # a function too
            stage = "export"
            reports.doing("export", strict)
            return _compile_answer(attempt, compiled, budget, timings, tick, exported, path)
        if not isinstance(attempt.module, torch.nn.Module):
            return {
                "status": "skipped",
                "strict": strict,
                "reason": f"{type(attempt.module).__name__} is not a torch.nn.Module",
            }
        stage = "export"
        reports.doing("export", strict)
        with warnings.catch_warnings(record=True) as caught, exporting(placement), budget.measure():
            warnings.simplefilter("always")
            program = torch.export.export(
                attempt.module,
                attempt.args,
                attempt.kwargs or None,
                dynamic_shapes=attempt.dynamic_shapes,
                strict=strict,
            )
        tick("export")
        reports.limit(
            budget
        )  # the passes after a slow export fit it (timeoutSeconds in docs/configuration.md)
        summary = summarize(program, path, list(caught), view=bool(job.get("graph")))
        layer_sites.annotate(summary, attempt.module)
        if attempt.dynamic_shapes is not None and (narrowed := narrowing(program)):
            reports.doing("narrowing")
            locate_narrowing(narrowed, attempt, strict, budget)  # one more export, only when found
            summary["narrowed"] = narrowed
        if not placement.fake and (step := _decode_step(program, attempt, budget, reports)):
            summary["decode_step"] = step
        summary["weights"] = {"meta": attempt.meta, "bytes": attempt.weight_bytes, "code_meta": code_meta}
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
        if job.get("parts_from") or job.get("targets"):
            # The export's own result is final: shown before its parts' inputs are recorded (an
            # eager pass or two) and its lowerings run, which only add to it.
            reports.early(dict(answer.copy()))
            yield_cpu()
        # After the export and the save: neither sees the hooks, nor what an eager run changes
        # (a BatchNorm's running statistics in training mode).
        reports.doing("parts")
        if found := record_parts(job, attempt, budget):
            answer["parts"] = found
        tick("parts")  # after the summary, before the answer: the benchmark's breakdown shows it
        if targets := job.get("targets"):
            from ..lowering import lower

            reports.doing("lower")
            answer["targets"] = lower(targets, program, attempt, path, budget, job.get("quantize", "none"))
            tick("targets")
        if placement.asked:  # the script asked for a GPU, this machine has none: look at its GPU path
            from .gpu_path import second_look  # last: it loads the file's modules again

            reports.doing("gpu_path")
            summary["gpu_path"] = second_look(job, strict, budget, placement.asked)
            tick("gpu_path")
        return answer
    except BaseException as exc:  # noqa: BLE001 - every failure becomes a record
        record = describe_failure(exc, stage, attempt, strict, path)
        record["placement"] = placement.describe()
        if job["memory_mb"]:
            record["memory_limit_mb"] = job["memory_mb"]
        failed: protocol.JobAnswer = {
            "status": "failed",
            "strict": strict,
            "failure": record,
            "timings": timings,
        }
        if exported is not None:
            failed["tree"] = exported
        parts: list[PartInputs] = []
        if stage == "export":
            from .decode_step import prefill_tokens

            if tokens := prefill_tokens(attempt):  # the message says which step refused
                record["prefill_tokens"] = tokens
            timings["export"] = budget.export_seconds  # the failed export alone, before the passes after it
            parts = after_failure(exc, dict(failed), job, attempt, placement, budget, reports, tick)
        else:
            tick("failure")
        if parts:
            failed["parts"] = parts
        return failed


def _compile_answer(
    attempt: Any,
    spec: protocol.CompileSpec,
    budget: Budget,
    timings: dict[str, float],
    tick: Any,
    exported: ModuleTree | None,
    path: str,
) -> protocol.JobAnswer:
    """A compile check's answer: "exported" says it ran to its end; what it found is `compile`."""
    from .compiled import compile_check

    report = compile_check(attempt, spec, budget, path)
    tick("compile")
    answer: protocol.JobAnswer = {"status": "exported", "strict": True, "timings": timings, "compile": report}
    if exported is not None:
        answer["tree"] = exported
    return answer


def _decode_step(program: Any, attempt: Any, budget: Budget, reports: Reports) -> DecodeStep | None:
    """A prefill with a cache: its program called for one more token (decode_step.py)."""
    from .decode_step import decode_step

    return decode_step(program, attempt, budget, lambda: reports.doing("decode_step"))


def _tree(job: protocol.JobMessage, module: Any) -> ModuleTree | None:
    """What the job exports (module_tree.py); None when that cannot be told."""
    import torch

    from ..parts.module_tree import module_tree

    if not isinstance(module, torch.nn.Module):
        return None
    try:
        return module_tree(job, module)
    except Exception:  # noqa: BLE001 - naming the class is a courtesy: the job goes on without it
        return None


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
        from ..lowering.onnx_file import save_onnx

        return save_onnx(program, target)
    try:
        torch.export.save(program, target)
    except Exception as exc:  # noqa: BLE001 - reported to the user as is
        return f"not saved: {type(exc).__name__}: {exc}"[:1000]
    return None
