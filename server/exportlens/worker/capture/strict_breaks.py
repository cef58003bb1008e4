"""Strict export's refusals after the first that the non-strict search cannot see: dynamo's breaks.

Strict export is dynamo allowed no graph break. `torch._dynamo.explain` runs dynamo as
torch.compile does instead: at each statement it cannot trace it breaks the graph, runs that
statement eagerly (on the example's real values) and traces on, and it lists every break with the
user's stack. With export's own dynamo settings, each break is where a strict export stops once the
ones before it are fixed: `torch.sparse_coo_tensor` in a graph layer after its asserts (pyGAT),
`open()`, a C extension, a data-dependent `if`. The non-strict search (allfailures.py) stops at
data-dependent lines too, with more to say (the condition, the example's values), but also where
dynamo does not stop (`float(t.max())`, which dynamo keeps symbolic): after_failure.py keeps its
stops where a break confirms them, and the breaks at other lines. In the child, after that search,
for a strict module only: about one strict trace and one eager run more.
"""

from __future__ import annotations

import dataclasses
import traceback
from typing import Any

from ..core.budget import Budget, OutOfBudget
from ..wire.records import FailureRecord, Frame
from .graph_breaks import graph_break
from .stepping import Site, site_of

_DYNAMO_MRO = ["Unsupported", "TorchDynamoException", "RuntimeError", "Exception", "BaseException", "object"]


def strict_breaks(attempt: Any, known: set[Site], budget: Budget | None) -> list[FailureRecord]:
    """The breaks of a strict trace past its first failure, at sites not in `known`, in order."""
    import torch

    reasons = []
    try:
        with budget.bounded() if budget else _nothing(), torch._dynamo.config.patch(_export_config()):
            explanation = torch._dynamo.explain(attempt.module)(*attempt.args, **(attempt.kwargs or {}))
        reasons = list(explanation.break_reasons)
    except OutOfBudget:
        raise
    except Exception:  # noqa: BLE001 - the module itself failing eagerly: nothing more to learn here
        return []
    records: list[FailureRecord] = []
    seen = set(known)
    for reason in reasons:
        message = str(getattr(reason, "reason", ""))
        gb_type, gb_id = graph_break(_Reason(message), message)
        frames = _frames(getattr(reason, "user_stack", None) or [])
        site = site_of(frames)
        if site is None or site in seen:
            continue
        seen.add(site)
        record: FailureRecord = {
            "stage": "export",
            "strict": True,
            "exc_type": "Unsupported",
            "exc_mro": _DYNAMO_MRO,
            "message": message[:20_000],
            "frames": frames,
            "real_stack": frames,
            "found_by": "dynamo-graph-breaks",
        }
        if gb_type:
            record["gb_type"] = gb_type
        if gb_id:
            record["gb_id"] = gb_id
        records.append(record)
    return records


class _Reason(Exception):
    """A break's text as the exception `graph_break` reads its type and id from."""


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _export_config() -> dict[str, Any]:
    """The dynamo settings strict export uses (its own dataclass in torch), else none."""
    try:
        from torch.export._trace import DEFAULT_EXPORT_DYNAMO_CONFIG
    except ImportError:
        return {}
    return dataclasses.asdict(DEFAULT_EXPORT_DYNAMO_CONFIG)


def _frames(stack: list[traceback.FrameSummary]) -> list[Frame]:
    frames: list[Frame] = []
    for summary in stack:
        frame: Frame = {"path": summary.filename, "line": summary.lineno or 0, "name": summary.name}
        col, end_line = getattr(summary, "colno", None), getattr(summary, "end_lineno", None)
        if col is not None and end_line == summary.lineno:  # 3.11+: the expression's own span
            frame["end_line"], frame["col"] = end_line, col
            frame["end_col"] = getattr(summary, "end_colno", None)
        frames.append(frame)
    return frames
