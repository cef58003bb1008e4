"""A module's status, decided once for the lens and the hover (docs/architecture.md).

A pure function of the snapshot: untrusted, exporting, cancelled, a part of another module (of
this file, or recorded by another file's export), exported as a function's result, not exported
yet, or its last results (marked stale while its text or settings changed, cached while a result
restored from the store is re-checked).  The lens shows this line; the hover starts with it.
"""

from __future__ import annotations

from pathlib import Path

from ..check.covered import holder
from ..discovery import Subject
from . import trust
from .session import Snapshot
from .summary_text import status_line

RUNNING = "⧗ exporting…"
CANCELLED = "export cancelled"
NOT_YET = "not exported yet"
NO_INPUTS = "no example inputs"


def module_status(snap: Snapshot, subject: Subject) -> str:
    view = snap.view(subject)
    if not snap.trusted:
        return f"not exported ({trust.why_no_code()})"
    if view.running:
        # Slow but progressing: what the check found so far, not a bare spinner (issue 43).
        early = view.entry if view.entry is not None and view.entry.early else None
        return f"{RUNNING} · so far: {status_line(early)}" if early is not None else RUNNING
    if view.cancelled:
        return CANCELLED
    entry = view.entry
    if subject.part_of is not None:
        parent = snap.results.get(subject.part_of)
        shown = f" · {status_line(parent)}" if parent is not None else f" · {NOT_YET}"
        if entry is not None and view.checked_alone:  # its check alone, on the inputs it gets there
            shown += f" · alone: {status_line(entry)}"
        return f"part of `{subject.part_of}`{shown}"
    if not view.checked_alone:
        results = {name: e.results for name, e in snap.results.items()}
        if (held := holder(subject, snap.path, results)) is not None:  # `build_model()` built it
            name, exported = held
            return f"{'exported as' if exported else 'part of'} `{name}` · {status_line(snap.results[name])}"
    # Checked as a part of what another file exports (check/elsewhere.py); a class that export
    # never calls is checked by its own file, as any class no export covers.
    if view.route.through == "parent" and (
        entry is None or any(r.inputs == "recorded" for r in entry.results)
    ):
        where = f"part of a module of {Path(view.route.path).name}"
        if entry is not None and view.checked_alone:
            return f"{where} · alone: {status_line(entry)}"
        return where if entry is not None else NOT_YET
    if entry is None:
        return NO_INPUTS if subject.inputs_kind == "none" and not view.route.elsewhere else NOT_YET
    status = status_line(entry)
    if view.stale:
        return status + " (stale)"
    return status + " (cached, re-checking)" if view.cached else status
