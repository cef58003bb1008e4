"""Which tracers a CLI run's jobs use, for the worker's warm-up before its first job.

The warm-up pays each tracer's first-use costs once, in the worker, so that every job forked
after it is warm (worker/host/warmup.py): ~2 s for non-strict, ~3 s more for strict (dynamo).
A run whose jobs are all non-strict (the default: the export call's `strict=`, else non-strict)
would wait for dynamo's for nothing; a strict job left cold would pay it in each of its children,
so where the file may ask for strict the guess is "both": the costly mistake is never made.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from ..document import Document
from .jobs import tracers

NON_STRICT, STRICT = "non-strict", "strict"
NOT_TORCH = ("re", "regex")  # `re.compile` is no torch.compile


def warm_tracers(files: Iterable[tuple[Document, str | None, bool]]) -> tuple[str, ...]:
    """The tracers of the jobs of `files`: (document, its mode setting, whether modules of it are
    checked through other files' export calls, whose `strict=` is not read here)."""
    used: set[str] = set()
    for doc, mode, elsewhere in files:
        for strict in tracers(mode):
            if strict is None:  # the export call decides
                used.add(NON_STRICT)
                if elsewhere or _may_ask_strict(doc):
                    used.add(STRICT)
            else:
                used.add(STRICT if strict else NON_STRICT)
    return tuple(t for t in (NON_STRICT, STRICT) if t in used)


def _may_ask_strict(doc: Document) -> bool:
    """`strict=` passed anything but a literal False, or `torch.compile` (dynamo too) named."""
    if doc.syntax_error is not None:
        return False  # nothing of it runs
    for node in ast.walk(doc.tree):
        if isinstance(node, ast.Attribute) and node.attr == "compile":
            if not (isinstance(node.value, ast.Name) and node.value.id in NOT_TORCH):
                return True
        elif isinstance(node, ast.Name) and node.id == "compile":
            return True  # `from torch import compile`
        elif isinstance(node, ast.keyword) and node.arg == "strict":
            if not (isinstance(node.value, ast.Constant) and node.value.value is False):
                return True
    return False
