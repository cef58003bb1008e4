"""After the first export failure, find the module's other failures: where the export, with the
earlier ones stepped over, really stops.

Called in the child only when the plain export failed, so clean modules pay nothing.  Returns extra
failure records (records.FailureRecord, as `failure.describe_failure`).

How: the export again, non-strict, past the known failures with the example's real values and
stopping at the first other one as the plain export would (stepping.py); each stop is one more
failure, known from then on, and one more export, until the export goes through, stops where no
real value steps past (a constraint violation, an error of the code: recorded, the last), stops
where it stopped before, runs out of budget, or `MAX_EXTRA`.  What only real-tensor propagation
makes fail (a size pinned to the example's after a 2-D boolean mask, as torch's own draft_export
does) is no failure, and nothing past it is found.  A first failure that is a constraint violation
has nothing after it (torch raises it once the whole module is traced): no search.  Cost: one
export per failure found, plus one; one more for a late constraint violation's guard sites
(bench/allfailures_cost.py).  The retrace is non-strict: for a strict module after_failure.py keeps
the stops dynamo's breaks confirm, and adds dynamo's other breaks (strict_breaks.py).
"""

from __future__ import annotations

import contextlib
from typing import Any

from ..core.budget import Budget, OutOfBudget
from ..wire.records import FailureRecord, Frame
from .failure import describe_failure
from .graph_breaks import causes
from .stepping import REAL_VALUE_CHECKS, real_values, site_of, stepping_over

MAX_EXTRA = 20  # a failing line inside a loop or a repeated layer is reported once anyway
_REAL_VALUE_ERRORS = frozenset({"PendingUnbackedSymbolNotFound", "MetadataMismatchError"})


def more_failures(
    exc: BaseException, attempt: Any, strict: bool, path: str, budget: Budget | None = None
) -> tuple[list[FailureRecord], bool]:
    """The other failures, and whether the search ran out of `budget` (what it found is kept)."""
    if attempt is None or not _supported():
        return [], False
    first = describe_failure(exc, "export", attempt, strict, path)
    if _error_type(exc) == "CONSTRAINT_VIOLATION":
        return [], False  # raised once the whole module is traced: nothing comes after it
    known = {s for s in (site_of(first["frames"]), site_of(_real_stack_frames(exc))) if s is not None}
    records: list[FailureRecord] = []
    while len(records) < MAX_EXTRA:
        if budget is not None and records and not budget.fits():
            return records, True
        try:
            with budget.bounded() if budget else contextlib.nullcontext(), stepping_over(known):
                attempt.export(strict=False)
            return records, False  # past every known failure, it exports
        except OutOfBudget:
            return records, True
        except Exception as error:  # noqa: BLE001 - where the export stops now
            record = _stop(error, exc, attempt, strict, path)
        site = site_of(record["frames"]) if record is not None else None
        if record is None or site in known or (site is None and not _violation(record)):
            return records, False  # stopped where it stopped before, or on nothing of the user's
        records.append(record)
        if site is None or record.get("draft_failure_type") is None:
            return records, False  # a failure no real value steps past: nothing after it is reached
        known.add(site)
    return records, False


def _stop(
    error: BaseException, first: BaseException, attempt: Any, strict: bool, path: str
) -> FailureRecord | None:
    """The record of where the stepped-over export stopped; None when it says nothing new."""
    for cause in causes(error):
        found: FailureRecord | None = getattr(cause, "exportlens_record", None)
        if found is not None:
            found["strict"] = strict
            return found
    violation = _error_type(error) == "CONSTRAINT_VIOLATION"
    # The retrace is non-strict: a strict module shares only its constraint violations.
    if (strict and not violation) or _exc_key(error) == _exc_key(first) or _real_values_failed(error):
        return None
    record = describe_failure(error, "export", attempt, strict, path)
    record["found_by"] = "real-tensor-propagation"
    if violation:
        _add_guard_sites(record, attempt)
    return record


def _real_values_failed(error: BaseException) -> bool:
    """Real-tensor propagation's own failure, not the export's: a data-dependent size pinned to the
    example's (torch's draft_export fails the same way on a 2-D boolean mask the export takes)."""
    for cause in causes(error):
        if type(cause).__name__ in _REAL_VALUE_ERRORS:
            return True
        tb = cause.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_name in REAL_VALUE_CHECKS:
                return True
            tb = tb.tb_next
    return False


def _violation(record: FailureRecord) -> bool:
    return "Constraints violated" in record["message"]


def _supported() -> bool:
    import torch._functorch.config as config
    import torch.fx.experimental.symbolic_shapes as symbolic_shapes

    return hasattr(config, "fake_tensor_propagate_real_tensors") and hasattr(
        symbolic_shapes.ShapeEnv, "_log_real_tensor_propagation"
    )


def _add_guard_sites(record: FailureRecord, attempt: Any) -> None:
    """Where the shape guards of a late constraint violation come from (failure.guard_sites, patched past
    data-dependent guards so it gets as far as the violation): about one more export."""
    from .guard_sites import guard_sites

    try:
        with real_values():
            record["guard_sites"] = guard_sites(attempt, False)
    except Exception as inner:  # noqa: BLE001 - locating is best effort
        record["guard_sites_error"] = f"{type(inner).__name__}: {inner}"[:500]


def _real_stack_frames(exc: BaseException) -> list[Frame]:
    """Strict (dynamo) errors carry the user's stack (and the library code it traced) in
    `real_stack`, not in the traceback."""
    stack = getattr(exc, "real_stack", None) or []
    return [{"path": f.filename, "line": f.lineno} for f in stack]


def _error_type(exc: BaseException) -> str:
    return str(getattr(getattr(exc, "error_type", None), "name", ""))


def _exc_key(exc: BaseException) -> tuple[str, str]:
    return type(exc).__name__, str(exc)[:500]
