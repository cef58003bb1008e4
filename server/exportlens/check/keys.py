"""Which modules need a new export: a content key per module.

A module's key hashes the file's text with the *other* module classes blanked
out (same number of lines, so line numbers stay put), except the classes it is
built from (and, for a part of another module, that module's: it is checked with the inputs
that module gives it).  So the key covers the class itself, the imports, helpers,
constants and the export call, and editing one module leaves the others'
results in place.  Changing the number of lines of a class above another one
moves that one's lines, and re-exports it: cached findings never point at the
wrong line.  Settings that change results (mode, python, ...) are part of the key.
"""

from __future__ import annotations

import ast
import hashlib
from typing import Any

from ..discovery import Discovery, Subject, discovery_of
from ..document import Document
from ..textpos import SourceText


def class_span(node: ast.AST) -> tuple[int, int]:
    """0-based first and last line of a class, decorators included."""
    first = min([getattr(node, "lineno", 1)] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return first - 1, getattr(node, "end_lineno", first) - 1


def document_keys(doc: Document, salt: tuple[Any, ...]) -> dict[str, str]:
    """Per module of `doc`, the key of its results under the settings in `salt`."""
    return module_keys(doc.text, discovery_of(doc), salt)


def module_keys(source: str, found: Discovery, salt: tuple[Any, ...]) -> dict[str, str]:
    lines = SourceText(source).lines  # Python's lines, as the ast counts them
    spans = {t.class_name: class_span(t.node) for t in found.subjects if t.class_name}
    keys: dict[str, str] = {}
    parents = {t.name: t for t in found.subjects}
    for subject in found.subjects:
        keep = {subject.class_name, *subject.uses}
        parent = parents.get(subject.part_of or "")
        if parent is not None:  # a part is checked with the inputs its parent gives it
            keep |= {parent.class_name, *parent.uses}
        masked = list(lines)
        for name, (first, last) in spans.items():
            if name not in keep:
                masked[first : last + 1] = [""] * (last + 1 - first)
        digest = hashlib.sha256(repr(salt).encode())
        digest.update(subject.name.encode() + b"\0" + "\n".join(masked).encode())
        keys[subject.name] = digest.hexdigest()
    return keys


def subject_at(found: Discovery, line: int) -> Subject | None:
    """The module whose class spans `line`."""
    for subject in found.subjects:
        if subject.class_name:
            first, last = class_span(subject.node)
            if first <= line <= last:
                return subject
    return None


def touched(found: Discovery, lines: set[int]) -> set[str]:
    hits = (subject_at(found, line) for line in lines)
    return {t.name for t in hits if t is not None}
