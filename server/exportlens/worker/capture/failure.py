"""Reduce an exception from a job to a failure record (records.FailureRecord; in the child, with torch).

The record carries torch's structured fields (`gb_type`, `error_type`,
`real_stack`, `cond`, the op of a missing fake kernel) next to the text, so
the caller-side mapper keys on those first and falls back to the message text
only for older torch versions.  Frames keep CPython's columns (UTF-8 bytes).

For a constraint violation torch's non-strict message has no location at all
(strict's only sometimes): guard_sites.py finds the line.
"""

from __future__ import annotations

import os
import re
import traceback
from typing import Any

from ..wire.records import ChainedException, FailureRecord, Frame, Stage
from .graph_breaks import causes, graph_break

MESSAGE_LIMIT = 20_000
CHAIN_LIMIT = 4
_EXPORT_ENTRY = re.compile(r"/torch/(export|_export|_dynamo)/")


def describe_failure(
    exc: BaseException, stage: Stage, attempt: Any, strict: bool, path: str
) -> FailureRecord:
    frames = traceback.extract_tb(exc.__traceback__)
    if stage == "export" and _raised_by_exportlens(frames):
        stage = "internal"  # the export itself went through: reading its result failed (our bug)
    record: FailureRecord = {
        "stage": stage,
        "strict": strict,
        "exc_type": type(exc).__name__,
        "exc_mro": [c.__name__ for c in type(exc).__mro__],
        "message": exception_text(exc)[:MESSAGE_LIMIT],
        "frames": frame_records(frames),
        "chain": _chain(exc),
    }
    gb_type, gb_id = graph_break(exc, record["message"])
    if gb_type:
        record["gb_type"] = gb_type
    if gb_id:
        record["gb_id"] = gb_id
    error_type = getattr(exc, "error_type", None)
    if error_type is not None:
        record["error_type"] = getattr(error_type, "name", str(error_type))
    # The guard's condition sits on the GuardOnDataDependentSymNode, which torch wraps (2.13:
    # as __context__ of the UserError, 2.15: deeper in the chain).
    cond = next((c for e in causes(exc) if (c := getattr(e, "cond", None)) is not None), None)
    if cond is not None:
        record["cond"] = str(cond)
    real_stack = getattr(exc, "real_stack", None)
    if real_stack:
        record["real_stack"] = frame_records(real_stack)
    # The operator of an UnsupportedOperatorException, however deep torch wrapped it.
    func = next((f for e in causes(exc) if hasattr(f := getattr(e, "func", None), "_schema")), None)
    if func is not None:
        record["op"] = str(func)
    return record


def _raised_by_exportlens(frames: Any) -> bool:
    """The job's code called ExportLens's own code (not torch) and that raised: an internal error."""
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep
    mine = [f.filename.startswith(here) for f in frames]
    exporting = any(_EXPORT_ENTRY.search(f.filename) for f in frames)
    # frames[0] is where the job caught it; below it, ExportLens's code ran and torch.export did not.
    return any(mine[1:]) and not exporting


def exception_text(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception as inner:  # noqa: BLE001 - a user exception's __str__ may itself fail
        return f"<unprintable {type(exc).__name__}: {inner!r}>"


def _chain(exc: BaseException) -> list[ChainedException]:
    """The exceptions behind this one (cause/context), innermost last."""
    out: list[ChainedException] = []
    seen = {id(exc)}
    inner = exc.__cause__ or exc.__context__
    while inner is not None and id(inner) not in seen and len(out) < CHAIN_LIMIT:
        seen.add(id(inner))
        out.append(
            {
                "exc_type": type(inner).__name__,
                "exc_mro": [c.__name__ for c in type(inner).__mro__],
                "message": exception_text(inner)[:2000],
                "frames": frame_records(traceback.extract_tb(inner.__traceback__)),
            }
        )
        inner = inner.__cause__ or inner.__context__
    return out


def frame_records(stack: Any) -> list[Frame]:
    return [
        {
            "path": f.filename,
            "line": f.lineno,
            "end_line": getattr(f, "end_lineno", None),
            "col": getattr(f, "colno", None),
            "end_col": getattr(f, "end_colno", None),
            "name": f.name,
        }
        for f in stack
    ]
