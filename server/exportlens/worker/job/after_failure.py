"""The passes after a failed export, in the child: planned from what the export cost.

The first failure is known once torch raised it. What follows only adds to it, in this order:
finding the line behind a constraint violation (`locate`: about one more export), whether the module
runs eagerly (`eager`), what its parts receive (`parts`), and the search for more failures (`search`:
about one more export per failure found). Before the first of them the child hands the worker its
failure as described (kept: what a timeout reports); before the search, the failure as final
(shown at once). Each pass is bounded by what the job has left (budget.py), the search is not
started when one more export would not fit, and the passes run at a lower priority than any
first export (the other tracer's, when both run at once).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any, Protocol

from ..capture.stepping import Site, site_of
from ..core.budget import Budget, OutOfBudget
from ..wire.protocol import out_of_time
from ..wire.records import FailureRecord, Frame, PartInputs
from ..wire.wordings import GUARD_ON_DATA, no_fake_kernel, says_data_dependent

NOT_STARTED = (
    "the search for more failures was not started: it costs about one more export ({cost:.0f} s here)"
    " and the time limit left {left:.0f} s. Raise `timeoutSeconds` (`--timeout`) to search too"
)
NICE = 5  # the passes after the first answer yield the CPU to first exports


class Reports(Protocol):
    def doing(self, step: str, strict: bool | None = None) -> None: ...
    def early(self, answer: dict[str, Any], keep: bool = False) -> None: ...
    def limit(self, budget: Budget) -> None: ...


def yield_cpu() -> None:
    """From now on this child only adds to an answer it has: let first exports go first."""
    try:
        os.nice(NICE)
    except OSError:  # not allowed here: the passes simply compete as before
        pass


def after_failure(
    exc: BaseException,
    failed: dict[str, Any],
    job: Any,
    attempt: Any,
    placement: Any,
    budget: Budget,
    reports: Reports,
    tick: Callable[[str], None],
) -> list[PartInputs]:
    """Run the passes after the failure `exc` (the answer `failed`, whose record they add to); the
    parts' inputs recorded on the way."""
    record: FailureRecord = failed["failure"]
    strict = bool(failed["strict"])
    reports.early(failed, keep=True)
    reports.limit(budget)  # the passes fit what the export cost, not only the limit left
    yield_cpu()
    # Re-running user code after an exit / out-of-memory would only repeat it.
    rerun = attempt is not None and not isinstance(exc, (SystemExit, KeyboardInterrupt, MemoryError))
    if rerun:
        _locate(record, attempt, strict, budget, reports)
    parts: list[PartInputs] = []
    if rerun and not placement.fake:  # fake tensors cannot run eagerly
        parts = _eager(record, job, attempt, budget, reports)
    tick("failure")
    if rerun and job["all_failures"] and _searchable(record, attempt, placement):
        reports.early(failed)  # final now: shown while the search runs
        reports.doing("search")
        _search(exc, record, attempt, strict, job["path"], budget)
        tick("more_failures")
    return parts


def _locate(record: FailureRecord, attempt: Any, strict: bool, budget: Budget, reports: Reports) -> None:
    """torch names no line for most constraint violations: find it (one more export)."""
    from ..capture.guard_sites import guard_sites, needs_guard_sites

    if not needs_guard_sites(record["message"], list(record["frames"])):
        return
    reports.doing("locate")
    located = time.perf_counter()
    try:
        with budget.bounded():  # the first failure's line first: the search gets what is left
            record["guard_sites"] = guard_sites(attempt, strict)
    except OutOfBudget:
        record["guard_sites_budget"] = out_of_time("locate")
    except BaseException as inner:  # noqa: BLE001 - locating is best effort
        record["guard_sites_error"] = f"{type(inner).__name__}: {inner}"[:500]
    record["locate_seconds"] = time.perf_counter() - located


def _eager(
    record: FailureRecord, job: Any, attempt: Any, budget: Budget, reports: Reports
) -> list[PartInputs]:
    """Whether eager raises too (eager.py), recording on the same pass the parts' inputs and where
    an output torch could not flatten is built and returned (output_site.py)."""
    from ..capture.eager import eager_verdict
    from ..capture.output_site import recording
    from ..parts.part_inputs import record_parts, recorder_for

    reports.doing("eager")
    recorder = recorder_for(job, attempt)
    try:
        with budget.bounded(), recording(record):
            eager = eager_verdict(attempt, record, recorder)
    except OutOfBudget:
        eager = None
    if eager is not None:
        record["eager"] = eager
    reports.doing("parts")
    return record_parts(job, attempt, budget, recorder)


def _searchable(record: FailureRecord, attempt: Any, placement: Any) -> bool:
    if attempt.meta and _data_dependent(record):
        # Meta weights have no values: the search (a retrace on real values) stops at this
        # very guard, after tracing the whole model again for nothing.
        record["more_skipped"] = "meta"
        return False
    if placement.fake:
        # The search retraces with real values; fake accelerator tensors have none.
        record["more_skipped"] = "device"
        return False
    return True


def _search(
    exc: BaseException, record: FailureRecord, attempt: Any, strict: bool, path: str, budget: Budget
) -> None:
    from ..capture.allfailures import more_failures
    from ..capture.strict_breaks import strict_breaks

    if not _steppable(record):
        return  # stopped where no real value steps past (an output, a violation, the code's own error)
    if not budget.fits():
        record["more_truncated"] = NOT_STARTED.format(cost=budget.export_seconds, left=max(budget.left(), 0))
        return
    try:
        first = _sites(record, exc)
        found, truncated = more_failures(exc, attempt, strict, path, budget)
        # The search retraces non-strict: for a strict module dynamo says which of its stops are
        # strict's; without dynamo's pass only the constraint violations stand.
        record["more"] = dynamo_stops(found, []) if strict else found
        if strict and not truncated:
            truncated = not budget.fits()
            if not truncated:
                record["more"] = dynamo_stops(found, strict_breaks(attempt, first, budget))
    except OutOfBudget:
        truncated = True
    except BaseException as inner:  # noqa: BLE001 - the first failure is still reported
        record["more_error"] = f"{type(inner).__name__}: {inner}"[:500]
        return
    if truncated:
        record["more_truncated"] = out_of_time("search")


def dynamo_stops(found: list[FailureRecord], breaks: list[FailureRecord]) -> list[FailureRecord]:
    """A strict module's later failures: the non-strict search's stops where dynamo breaks too (a
    data-dependent `if`) and its constraint violations (both tracers raise them), then dynamo's
    other breaks. A stop dynamo traces through is none of strict's: `float(t.max())` stops the
    non-strict retrace, while dynamo keeps the value symbolic and breaks, if at all, at the `if` on it."""
    at = {site: b for b in breaks if (site := site_of(b["frames"])) is not None}
    kept = [r for r in found if "Constraints violated" in r["message"] or site_of(r["frames"]) in at]
    have = {site_of(r["frames"]) for r in kept}
    return kept + [b for site, b in at.items() if site not in have]


def _sites(record: FailureRecord, exc: BaseException) -> set[Site]:
    """Where the failures known so far are: the first (its traceback, dynamo's stack), those found."""
    stack = getattr(exc, "real_stack", None) or []
    frame_lists: list[list[Frame]] = [
        record["frames"],
        [{"path": f.filename, "line": f.lineno} for f in stack],
    ]
    frame_lists += [r["frames"] for r in record.get("more") or []]
    return {s for frames in frame_lists if (s := site_of(frames)) is not None}


def _steppable(record: FailureRecord) -> bool:
    """Whether the search can get past this first failure: a data-dependent guard or branch, a
    graph break (strict), a custom op without a fake kernel. Not a constraint violation or an output
    torch cannot flatten (both come once the whole module is traced), nor an error of the code."""
    mro = record.get("exc_mro") or []
    message = record["message"]
    return (
        GUARD_ON_DATA in mro
        or "Unsupported" in mro
        or bool(record.get("gb_type"))
        or record.get("error_type") in ("ANTI_PATTERN", "DYNAMIC_CONTROL_FLOW")
        or no_fake_kernel(message)
    )


def _data_dependent(record: FailureRecord) -> bool:
    return record.get("exc_type") == GUARD_ON_DATA or says_data_dependent(record["message"])
