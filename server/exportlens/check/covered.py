"""Which classes an export already covers, and the order of a check that follows from it.

A job with real inputs (the user's export call, an `example_inputs()` method) reports the class it
exported and the workspace classes its module is built from (worker/parts/module_tree.py): only running
tells what `build_model(cfg)`, `Model.from_name("b0")` or `wrapper.module` is. A class that such an
export covers is checked by that export, never on its own with guessed inputs:
- the exported class (`model = build_model(cfg)` builds `Net`): no job of its own; the export's
  findings are its findings, said of `Net` (exported as `model`);
- a part of it: checked with the inputs it receives there (parts.py), as a part discovery found.
So in a file with real inputs the guessed-input jobs wait for those jobs and run only for the
classes no export covers; "no example inputs" is said only of those too. A file without real
inputs keeps its one round. A class of a file without real inputs that another file's export
builds is checked through that file (check/plan.py's parent files), as every check places it.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from ..discovery import REAL_INPUTS, Subject
from ..document import Document
from ..engine import JobOutcome
from ..findings import ModuleResult
from ..worker.wire.records import ModuleTree

_Job = TypeVar("_Job", bound=tuple[Subject, bool | None])


def tree_of(outcome: JobOutcome | None) -> ModuleTree | None:
    return outcome.tree if outcome is not None else None


def exported_class(subject: Subject, outcome: JobOutcome | None) -> str | None:
    """The class `subject`'s job exported, when the subject's name does not say it (`model`)."""
    tree = tree_of(outcome)
    name = tree["root"]["class"] if tree else None
    # `UNet@12`: a second export call of `UNet`, named by its line
    return None if name in (None, subject.name.partition("@")[0], subject.class_name) else name


def exported_as(doc: Document, subject: Subject) -> str | None:
    """What the export call passes (`model`, `wrapper.module`), when it fits in a message."""
    first = subject.call.args[0] if subject.call is not None and subject.call.args else None
    text = ast.get_source_segment(doc.text, first) if first is not None else None
    return text if text and len(text) <= 40 and "\n" not in text else None


def holder(
    subject: Subject, path: str, results: Mapping[str, Sequence[ModuleResult]]
) -> tuple[str, bool] | None:
    """The module (of `results`) whose export covers `subject`'s class, and whether it exported that
    class itself (True) or holds it as a part (False); the exported class first."""
    here, held = str(Path(path).resolve()), None
    for name, found in results.items():
        for result in found if name != subject.name else ():
            if result.tree is None:
                continue
            if (result.tree["root"]["file"], result.tree["root"]["class"]) == (here, subject.class_name):
                return name, True
            parts = {(part["file"], part["class"]) for part in result.tree["parts"]}
            if held is None and (here, subject.class_name) in parts:
                held = name, False
    return held


def unresolved(subject: Subject) -> bool:
    """A class of the file that no export is known to cover before the exports run."""
    return (
        subject.class_name is not None and subject.part_of is None and subject.inputs_kind not in REAL_INPUTS
    )


def with_exporters(chosen: Sequence[Subject], every: Sequence[Subject]) -> list[Subject]:
    """`chosen` and, when it holds a class to check on guessed inputs, the file's modules with real
    inputs: their exports tell whether they cover it (the guess is made only if none does)."""
    names = {t.name for t in chosen}
    if any(unresolved(t) and t.inputs_kind == "inferred" for t in chosen):
        names |= {t.name for t in every if t.inputs_kind in REAL_INPUTS}
    return [t for t in every if t.name in names]


def held_back(jobs: Sequence[_Job]) -> list[_Job]:
    """The guessed-input jobs that wait for the jobs with real inputs, when there are any."""
    if not any(subject.inputs_kind in REAL_INPUTS for subject, _ in jobs):
        return []
    return [job for job in jobs if job[0].inputs_kind == "inferred"]


@dataclasses.dataclass
class Coverage:
    """What the first round's exports cover of the classes of `path`."""

    path: str
    runs: Sequence[tuple[Subject, JobOutcome]]

    def __post_init__(self) -> None:
        self.roots: set[str] = set()  # classes of this file exported as such
        self.parts: dict[str, str] = {}  # class of this file -> the module whose export holds it
        here = str(Path(self.path).resolve())
        for subject, outcome in self.runs:
            tree = tree_of(outcome)
            if tree is None:
                continue
            if tree["root"]["file"] == here:
                self.roots.add(tree["root"]["class"])
            for part in tree["parts"]:
                if part["file"] == here:
                    self.parts.setdefault(part["class"], subject.name)

    def covers(self, subject: Subject) -> bool:
        return unresolved(subject) and (subject.class_name in self.roots or subject.class_name in self.parts)

    def marked(self, subjects: Sequence[Subject]) -> list[Subject]:
        """`subjects`, each class an export holds as a part (and not as its exported class) marked
        `part_of` that export's module: checked with the inputs it receives there (parts.py)."""
        return [
            dataclasses.replace(t, part_of=self.parts[str(t.class_name)])
            if self.covers(t) and t.class_name not in self.roots and t.class_name in self.parts
            else t
            for t in subjects
        ]
