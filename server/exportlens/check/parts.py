"""Parts checked with the inputs they really get (issue 13, item 1): the second round of a check.

A class that is only part of a module with real inputs (discovery's `part_of`) is never checked
on guessed inputs. While its parent is exported, the worker records what it receives
(worker/parts/part_inputs.py); the part is then exported on its own with those inputs (random tensors
of the recorded shapes and dtypes, its parent's Dims on the dims that follow them), and its findings
land on its lines like any other module's:
- one its parent's export already found (the same code on the same line, or any parent error on
  that line) is not said twice;
- an error of a part whose parent exports in that tracer cannot be hit by the user's export (the
  parent traced the part with those very inputs): it comes from checking the part alone (a range
  the parent's code bounded, values the random inputs lack), so it is one information finding,
  `recorded-inputs-failed`.
A part without a record (its parent never called it, or its inputs cannot be rebuilt) stays
silent, as before; so does one whose rebuilt inputs fail before the export.

A part class may live in another workspace file (`blocks.py`'s `Block` inside `model.py`'s
`GPT`): the worker records it too, and a check given that file's document (`others`) checks its
classes the same way, named `blocks.Block` (`foreign_name`), their findings kept on that file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..codes import registered
from ..discovery import REAL_INPUTS, Subject, discovery_of
from ..engine import JobOutcome
from ..findings import Finding
from ..worker.wire.records import PartInputs

if TYPE_CHECKING:
    from ..document import Document

CODE = "recorded-inputs-failed"


@dataclass
class RecordedPart:
    subject: Subject  # the part, its inputs those recorded in `parent`
    parent: str
    file: str  # the file that defines the part's class


def foreign_name(path: str, name: str) -> str:
    """How a check of another file names a part class of `path`: `blocks.Block`."""
    return f"{Path(path).stem}.{name}"


def with_parents(chosen: list[Subject], every: list[Subject]) -> list[Subject]:
    """`chosen` and the parents of its parts: a part's inputs are recorded by its parent's export."""
    names = {t.name for t in chosen}
    wanted = names | {t.part_of for t in chosen if t.part_of is not None}
    return [t for t in every if t.name in wanted]


def recorded_parts(
    subjects: Sequence[Subject],
    runs: Sequence[tuple[Subject, JobOutcome]],
    path: str,
    others: Sequence[Document] = (),
) -> dict[str, RecordedPart]:
    """Each part that a parent's job recorded inputs for, the first such record: the parts of
    `subjects` (classes of `path`), and the classes without real inputs of each of `others`."""
    candidates = [(t, path, t.name) for t in subjects if t.part_of is not None and t.class_name]
    for other in others:
        candidates += [
            (t, other.path, foreign_name(other.path, t.name))
            for t in discovery_of(other).subjects
            if t.class_name and t.inputs_kind not in REAL_INPUTS and other.path != path
        ]
    found: dict[str, RecordedPart] = {}
    for part, file, name in candidates:
        for parent, outcome in runs:
            record = _record(outcome, str(part.class_name), file)
            if record is None or parent.inputs_kind not in REAL_INPUTS:
                continue
            spec: dict[str, Any] = {
                "kind": "recorded",
                "class": part.class_name,
                "parent": parent.inputs,
                "module": record["module"],
                "args": record["args"],
                "kwargs": record["kwargs"],
                "dims": record["dims"],
            }
            if record.get("meta"):
                spec["meta"] = True
            subject = replace(part, name=name, inputs=spec)
            found[name] = RecordedPart(subject, parent.name, file)
            break
    return found


def _record(outcome: JobOutcome, class_name: str, file: str) -> PartInputs | None:
    for record in outcome.parts:
        if record["class"] == class_name and record.get("file") == file and "unsupported" not in record:
            return record
    return None


def reached_export(outcome: JobOutcome) -> bool:
    """A part's job that failed before exporting failed on what ExportLens rebuilt (its parent was
    built and imported fine in its own job): nothing to say of the part's code."""
    return outcome.failure is None or outcome.failure.get("stage") == "export"


def part_findings(
    findings: list[Finding], part: RecordedPart, parent_findings: list[Finding], exported: set[str]
) -> list[Finding]:
    """The part's findings less its parent's; `exported`: the tracers its parent exports in."""
    said = {(f.path, f.range.start.line, f.code) for f in parent_findings}
    errors_at = {(f.path, f.range.start.line) for f in parent_findings if f.severity == "error"}
    kept = [
        f
        for f in findings
        if (f.path, f.range.start.line, f.code) not in said and (f.path, f.range.start.line) not in errors_at
    ]
    alone = [f for f in kept if f.severity == "error" and _exports_in(f.mode, exported)]
    if not alone:
        return kept
    first = alone[0]
    more = f" ({len(alone) - 1} more on the same inputs.)" if len(alone) > 1 else ""
    name = part.subject.class_name or part.subject.name
    message = (
        f"`{name}` checked alone, with the inputs `{part.parent}` gives it, fails here, but "
        f"`{part.parent}` exports: the real export never fails this way. What torch said: {first.message}"
        f"{more} Nothing to change for `{part.parent}`'s export; to export `{name}` on its "
        "own, give it real inputs: an `example_inputs(self)` method, or a `torch.export.export(...)` call."
    )
    softened = replace(
        first, severity=registered(CODE).severity, code=CODE, message=message, url=None, fix=None
    )
    return [softened, *(f for f in kept if f not in alone)]


def _exports_in(mode: str | None, exported: set[str]) -> bool:
    if mode == "both":
        return {"strict", "non-strict"} <= exported
    return mode in exported
