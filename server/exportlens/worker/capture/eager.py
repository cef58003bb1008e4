"""Does the module run eagerly on the same inputs? Decides whether "your code raised" is true.

An exception raised from user (or library) code while tracing is the user's own only if eager
raises it too. When eager passes, it is a tracer refusal: a `SymBool` reaching an argument that
must be a plain `bool`, a `torch.distributions` constructor validating fake values, a library
check that reads values tracing does not have.
"""

from __future__ import annotations

import contextlib
from typing import Any

from ..wire.records import EagerVerdict, FailureRecord
from ..wire.wordings import TORCH_RAISED


def eager_verdict(attempt: Any, record: FailureRecord, hooks: Any = None) -> EagerVerdict | None:
    """{"ok": True} or {"ok": False, "exc_type", "message"}; None when not worth asking.

    `hooks`: a context (part_inputs.PartRecorder) the run happens under, so the parts' inputs are
    recorded by this same pass."""
    import torch

    mro = record.get("exc_mro") or []
    if attempt is None or attempt.meta or any(name.startswith(TORCH_RAISED) for name in mro):
        return None  # torch's own refusal, or no real values to run on
    try:
        with hooks or contextlib.nullcontext(), torch.no_grad():
            attempt.module(*attempt.args, **(attempt.kwargs or {}))
    except BaseException as exc:  # noqa: BLE001 - what eager does is the answer (GeneratorExit too)
        return {"ok": False, "exc_type": type(exc).__name__, "message": _text(exc)}
    return {"ok": True}


def _text(exc: BaseException) -> str:
    try:
        return str(exc)[:500]
    except Exception:  # noqa: BLE001 - an exception whose __str__ raises
        return f"<{type(exc).__name__} that cannot be printed>"
