"""After the first export failure, find the module's other independent failures.

Called in the child only when the plain export failed, so clean modules pay
nothing.  Returns extra failure records (records.FailureRecord, as `failure.describe_failure`).

How: one more non-strict export with real-tensor propagation on (what
`draft_export` does), which patches past each data-dependent guard and each
missing/mismatched fake kernel by using the real value.  Unlike draft_export we
do not switch on torch's structured trace: that symbolises a stack for every
symbolic expression (most of draft_export's up-to-14x cost) and writes a trace
file under /tmp/export_<user>/.  Instead two hooks record only the events we
report, each with the user's frames read straight off the live stack.
Nothing is written to disk.  If the retrace still raises (a constraint
violation past the patched guards, another non-strict error), that is one more
record.  Cost: about one full non-strict export, plus one for a late
constraint violation's guard sites (bench/allfailures_cost.py).  Not found:
strict-only failures (open(), time.time() ...) after the first, as the retrace
is non-strict.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import sysconfig
import warnings
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

from .budget import Budget, OutOfBudget
from .failure import MESSAGE_LIMIT, describe_failure
from .records import FailureRecord, Frame

_RUNTIME_ERROR_MRO = ["RuntimeError", "Exception", "BaseException", "object"]
MAX_EXTRA = 20  # a failing line inside a loop or a repeated layer is reported once anyway

_NOT_USER = tuple(
    os.path.join(os.path.realpath(p), "")
    for p in {
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))),  # exportlens itself
        *(sysconfig.get_paths().get(k, "") for k in ("stdlib", "platstdlib", "purelib", "platlib")),
    }
    if p
)


def more_failures(
    exc: BaseException, attempt: Any, strict: bool, path: str, budget: Budget | None = None
) -> tuple[list[FailureRecord], bool]:
    """The other failures, and whether the search ran out of `budget` (what it found is kept)."""
    if attempt is None or not _supported():
        return [], False
    first = describe_failure(exc, "export", attempt, strict, path)["frames"]
    seen = {key for key in (_innermost(first), _innermost(_real_stack_frames(exc))) if key is not None}
    events: list[FailureRecord] = []
    late: BaseException | None = None
    truncated = False
    try:
        with budget.bounded() if budget else contextlib.nullcontext(), _real_values(events):
            attempt.export(strict=False)
    except OutOfBudget:
        truncated = True
    except Exception as error:  # noqa: BLE001 - a failure the retrace could not patch past
        late = error
    records: list[FailureRecord] = []
    for event in events:
        key = _innermost(event["frames"])
        if key is None or key in seen:
            continue
        seen.add(key)
        event["strict"] = strict
        records.append(event)
    # The retrace is non-strict: in strict mode only its constraint violations are shared.
    violation = late is not None and _error_type(late) == "CONSTRAINT_VIOLATION"
    if late is not None and (not strict or violation):
        record = describe_failure(late, "export", attempt, strict, path)
        key = _innermost(record["frames"])
        # Without a user frame only torch's own verdict counts (not an error of ours).
        if (key is not None or violation) and key not in seen and _exc_key(late) != _exc_key(exc):
            record["found_by"] = "real-tensor-propagation"
            if violation:
                _add_guard_sites(record, attempt)
            records.append(record)
    return records[:MAX_EXTRA], truncated


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
        with _real_values([]):
            record["guard_sites"] = guard_sites(attempt, False)
    except Exception as inner:  # noqa: BLE001 - locating is best effort
        record["guard_sites_error"] = f"{type(inner).__name__}: {inner}"[:500]


@contextlib.contextmanager
def _real_values(events: list[FailureRecord]) -> Iterator[None]:
    """Use real values where fake ones would fail (as draft_export does), recording each such place."""
    import torch._functorch.config as config

    with (
        config.patch(
            fake_tensor_propagate_real_tensors=True, generate_fake_kernels_from_real_mismatches=True
        ),
        warnings.catch_warnings(),
        _hooks(events),
    ):
        warnings.simplefilter("ignore")
        yield


@contextlib.contextmanager
def _hooks(events: list[FailureRecord]) -> Iterator[None]:
    """Record torch's "I used the real value here" events instead of tracing them."""
    import torch._subclasses.fake_tensor as fake_tensor
    import torch.fx.experimental.symbolic_shapes as symbolic_shapes

    shape_env = symbolic_shapes.ShapeEnv

    def on_real_value(self: Any, orig_expr: Any, unsound_result: Any) -> None:
        events.append(
            {
                "stage": "export",
                "exc_type": "GuardOnDataDependentSymNode",
                "exc_mro": [
                    "GuardOnDataDependentSymNode",
                    "RuntimeError",
                    "Exception",
                    "BaseException",
                    "object",
                ],
                "message": f"Could not guard on data-dependent expression {orig_expr}"[:MESSAGE_LIMIT],
                "draft_failure_type": "DATA_DEPENDENT_ERROR",
                "cond": str(orig_expr),
                # torch's value from real tensors; unreliable for float->int (TruncToInt) expressions
                "example_value": repr(unsound_result)[:200],
                "frames": _user_frames(sys._getframe(1)),
                "found_by": "real-tensor-propagation",
            }
        )

    def on_dtrace(name: str, metadata_fn: Callable[[], Any] = dict, **_: Any) -> None:
        if name not in ("missing_fake_kernel", "mismatched_fake_kernel"):
            return
        metadata = metadata_fn()
        op = metadata.get("op", "?") if isinstance(metadata, dict) else "?"
        missing = name == "missing_fake_kernel"
        events.append(
            {
                "stage": "export",
                "exc_type": "RuntimeError",
                "exc_mro": _RUNTIME_ERROR_MRO,
                "message": (
                    f"Operator {op} has no fake impl registered; use torch.library.register_fake"
                    if missing
                    else f"The fake impl of {op} disagrees with its real kernel: {metadata.get('reason', '')}"
                )[:MESSAGE_LIMIT],
                "draft_failure_type": name.upper(),
                "op": op,
                "frames": _user_frames(sys._getframe(1)),
                "found_by": "real-tensor-propagation",
            }
        )

    saved = (
        shape_env.__dict__.get("_log_real_tensor_propagation"),
        getattr(fake_tensor, "dtrace_structured", None),
    )
    shape_env._log_real_tensor_propagation = on_real_value  # type: ignore[method-assign]
    setattr(fake_tensor, "dtrace_structured", on_dtrace)  # noqa: B010 - torch does not re-export it
    try:
        yield
    finally:
        if saved[0] is not None:
            shape_env._log_real_tensor_propagation = saved[0]  # type: ignore[method-assign]
        if saved[1] is not None:
            setattr(fake_tensor, "dtrace_structured", saved[1])  # noqa: B010


def _user_frames(frame: FrameType | None) -> list[Frame]:
    """The live stack's user frames, outermost first, with CPython's (byte) columns; then the
    library frames inside the innermost one (`torch.distributions` validating, a library's
    check) that led to the event, innermost last: where the guard was really made."""
    frames: list[Frame] = []
    inside: list[Frame] = []  # library frames deeper than any user frame seen so far
    while frame is not None:
        code = frame.f_code
        if not frames and _is_library(code.co_filename):
            inside.append({"path": code.co_filename, "line": frame.f_lineno, "name": code.co_name})
        if _is_user(code.co_filename):
            line, end_line, col, end_col = frame.f_lineno, None, None, None
            if frame.f_lasti >= 0 and hasattr(code, "co_positions"):
                positions = list(code.co_positions())
                index = frame.f_lasti // 2
                if index < len(positions):
                    line, end_line, col, end_col = positions[index]
                    line = line or frame.f_lineno
            frames.append(
                {
                    "path": code.co_filename,
                    "line": line,
                    "end_line": end_line,
                    "col": col,
                    "end_col": end_col,
                    "name": code.co_name,
                }
            )
        frame = frame.f_back
    return frames[::-1] + inside[:LIBRARY_FRAMES][::-1]


LIBRARY_FRAMES = 4
# torch's public layers a user calls (not its tracing machinery), and any installed package.
_LIBRARY_PARTS = ("/torch/nn/", "/torch/distributions/", "/site-packages/", "/dist-packages/")
_TORCH_MACHINERY = ("/torch/_", "/torch/fx/", "/torch/export/", "/torch/utils/", "/torch/overrides")


@functools.lru_cache(maxsize=4096)
def _is_library(filename: str) -> bool:
    if not any(part in filename for part in _LIBRARY_PARTS) or "/exportlens/" in filename:
        return False
    torch_at = filename.rfind("/torch/")
    return torch_at < 0 or not filename[torch_at:].startswith(_TORCH_MACHINERY)


@functools.lru_cache(maxsize=4096)
def _is_user(filename: str) -> bool:
    if filename.startswith("<"):
        return False
    return not os.path.realpath(filename).startswith(_NOT_USER)


def _real_stack_frames(exc: BaseException) -> list[Frame]:
    """Strict (dynamo) errors carry the user's stack in `real_stack`, not in the traceback."""
    stack = getattr(exc, "real_stack", None) or []
    return [{"path": f.filename, "line": f.lineno} for f in stack if _is_user(f.filename)]


def _innermost(frames: list[Frame]) -> tuple[str, int] | None:
    user = [f for f in frames if _is_user(str(f.get("path", "<")))]
    return (str(user[-1]["path"]), int(user[-1]["line"] or 0)) if user else None


def _error_type(exc: BaseException) -> str:
    return str(getattr(getattr(exc, "error_type", None), "name", ""))


def _exc_key(exc: BaseException) -> tuple[str, str]:
    return type(exc).__name__, str(exc)[:500]
