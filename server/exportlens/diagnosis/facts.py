"""What the diagnosis derives from a failure record, kept beside the record, never written into it.

The worker's record says what torch raised and where (`worker/capture/failure.py`); which of its frames
are the user's, whether the user's code (or a library it calls) raised, and the culprit's text
depend on the workspace and the buffer, so they are worked out here, once per record.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..worker.wire.records import FailureRecord, Frame
from .context import DiagnosisContext
from .locate import is_third_party, is_workspace


@dataclass(frozen=True)
class Facts:
    # Workspace frames of the failure, outermost first (`locate.user_frames`).
    user_frames: list[Frame] = field(default_factory=list)
    # The exception was raised by workspace code itself or a library it calls, not by torch.
    user_raised: bool = False
    # A library class's constructor raised (transformers checking its config): still `__init__`.
    library_init: bool = False
    snippet: str = ""  # the culprit expression as written: the user's line, else the library's
    statement: str = ""  # the whole statement around it
    culprit_in_file: bool = False  # the culprit is in the checked file (not another of the workspace)


def user_raised(record: FailureRecord, ctx: DiagnosisContext) -> bool:
    """The exception was raised by workspace code itself (its innermost frame), or by a library
    the code calls (a `raise ValueError` in transformers' forward), not by torch."""
    mro = record.get("exc_mro") or []
    if any(name.startswith("Torch") or name in ("Unsupported", "UserError") for name in mro):
        return False
    frames = record.get("frames") or []
    innermost = str(frames[-1].get("path", "")) if frames else ""
    return bool(frames) and (is_workspace(innermost, ctx) or is_third_party(innermost))
