"""A parent's part records reused while only the parent's own class changed (issue 32, item 2).

A module with real inputs records what its parts receive on each export (worker/part_inputs.py:
an eager pass or two). While the user types in the parent's `forward` (or its other methods),
its parts' classes and everything else in the file stay the same: the job is sent without
`parts_from` (no recording) and the records of the last job that recorded are used again. What
a record depends on: the file outside the parent's class (the parts' classes, the constants
they are built from, the export call), the parent's `__init__` (how it builds its parts) and
inputs method, the files its parts come from, and the options that change how tensors are made;
any change there records again. An edit in the parent's `forward` that changes what it passes
to a part is seen at the next recording (any edit of those, a new session).

Kept per engine (one per interpreter: the server's session, the CLI's run).
"""

from __future__ import annotations

import ast
import hashlib
import json
import logging
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from ..discovery import Subject
from ..document import Document
from ..engine import Engine, JobOutcome
from ..worker.wire.records import PartInputs
from .jobs import CheckOptions

log = logging.getLogger("exportlens.check")
KEPT = 64  # parents remembered per engine


@dataclass
class Recording:
    """What a parent's job records: `files` sent as its `parts_from`, or `reused` records."""

    key: tuple[str, str, bool | None]
    digest: str
    files: list[str]
    reused: list[PartInputs] | None = None


class PartRecords:
    def __init__(self) -> None:
        self._kept: OrderedDict[tuple[str, str, bool | None], tuple[str, list[PartInputs]]] = OrderedDict()

    def plan(
        self,
        doc: Document,
        parent: Subject,
        strict: bool | None,
        files: list[str],
        others: Sequence[Document],
        options: CheckOptions,
    ) -> Recording:
        """Record in `files` (none: nothing to record), unless the last records still hold."""
        key = (doc.path, parent.name, strict)
        if not files:
            return Recording(key, "", [])
        digest = _digest(doc, parent, others, options)
        kept = self._kept.get(key)
        if kept is not None and kept[0] == digest:
            log.info("%s: its parts' inputs as last recorded (only its own class changed)", parent.name)
            return Recording(key, digest, [], kept[1])
        return Recording(key, digest, files)

    def settle(self, recording: Recording, outcome: JobOutcome) -> None:
        """The outcome gets the reused records (if its export ran as far as recording would), or
        its own new ones are kept."""
        if recording.reused is not None:
            if outcome.failure is None or outcome.failure.get("stage") == "export":
                outcome.parts = list(recording.reused)
            return
        if recording.files and outcome.parts:
            self._kept[recording.key] = (recording.digest, list(outcome.parts))
            self._kept.move_to_end(recording.key)
            while len(self._kept) > KEPT:
                self._kept.popitem(last=False)


_BY_ENGINE: weakref.WeakKeyDictionary[Engine, PartRecords] = weakref.WeakKeyDictionary()


def part_records(engine: Engine) -> PartRecords:
    if engine not in _BY_ENGINE:
        _BY_ENGINE[engine] = PartRecords()
    return _BY_ENGINE[engine]


def _digest(doc: Document, parent: Subject, others: Sequence[Document], options: CheckOptions) -> str:
    """The file less the parent's class, the other files, the parent's inputs, how tensors are made."""
    text = doc.text
    own = _parent_class(doc, parent.class_name)
    kept: list[str] = []
    if own is not None:
        lines = text.splitlines(keepends=True)
        first = min([own.lineno, *(d.lineno for d in own.decorator_list)])
        text = "".join(lines[: first - 1] + lines[own.end_lineno or len(lines) :])
        methods = ("__init__", parent.inputs.get("method"))
        kept = [
            ast.get_source_segment(doc.text, node) or ""
            for node in own.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in methods
        ]
    digest = hashlib.sha256(text.encode())
    for segment in kept:
        digest.update(b"\0" + segment.encode())
    for other in others:
        digest.update(b"\0" + other.path.encode() + b"\0" + other.text.encode())
    # where the export call is (its text is in the file's): not what the parts receive
    inputs = {k: v for k, v in parent.inputs.items() if k not in ("call", "line")}
    facts = [inputs, options.meta_above_mb, options.device, options.roots]
    digest.update(json.dumps(facts, sort_keys=True, default=str).encode())
    return digest.hexdigest()


def _parent_class(doc: Document, class_name: str | None) -> ast.ClassDef | None:
    """The top-level class of that name, if any."""
    if class_name is None or doc.syntax_error is not None:
        return None
    for node in doc.tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            return node
    return None
