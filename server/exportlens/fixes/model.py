"""What a fix is: a title, one set of line edits, and how the worker should prove it."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from ..document import Document
from .edits import Edit, apply


@dataclass
class Fix:
    title: str  # what it does; the proof's verdict is appended when known
    code: str  # the diagnostic code it answers
    kind: str  # cond | where | check | dims | eval | buffer | guard-print | remove | export-call | example
    # | register-dataclass | cache-wrapper
    edits: list[Edit]
    # How the worker proves it (worker/job/verify.py): {"compare": "original" | "self", "flip": bool}.
    # None: nothing to prove (a refusal).
    verify: dict[str, Any] | None = field(default_factory=lambda: {"compare": "self", "flip": False})
    disabled: str | None = None  # why this fix cannot be offered (shown greyed out, never applied)
    module: str | None = None
    line: int | None = None  # 0-based line it is offered on when no finding anchors it
    data: dict[str, Any] = field(default_factory=dict)  # kind-specific facts (make-dynamic: call, input, dim)
    # The text it proposes, as one document (validated, proven and discovered from its one parse).
    candidate: Document | None = field(default=None, repr=False, compare=False)

    def proposed(self, doc: Document) -> Document:
        """The document this fix makes of `doc` (the one it was computed on); made once."""
        if self.candidate is None:
            self.candidate = apply(doc, self.edits)
        return self.candidate

    @property
    def key(self) -> str:
        digest = hashlib.sha256(f"{self.code}\0{self.kind}\0{self.title}".encode())
        for e in self.edits:
            digest.update(f"{e.first}:{e.end}:{e.text}".encode())
        return digest.hexdigest()[:16]


def refused(title: str, code: str, kind: str, why: str) -> Fix:
    return Fix(title, code, kind, [], None, disabled=why)
