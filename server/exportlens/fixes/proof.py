"""Turn a fix into a worker job that proves it, and the worker's verdict into words.

The job exports the buffer *with the fix applied* (in memory: nothing is written) and compares
the exported program with eager mode (worker/job/verify.py).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ..check.compiled import AS_COMPILED
from ..check.jobs import CheckOptions, import_context, make_job
from ..check.plan import Placement
from ..check.routes import Route, route_of, routed_subject
from ..discovery import discovery_of
from ..document import Document
from ..engine import Job, JobOutcome
from .model import Fix


@dataclass
class Proof:
    exports: bool
    matches: bool | None
    branches_checked: int
    reason: str
    compared: str  # "original" | "self"
    refined: Any = None  # dynamic_shapes as torch narrowed them (make-dynamic fixes)
    checked: bool = True  # False: there was nothing to prove it with (`reason` says why)
    compiled: bool = False  # a graph break's fix: "exports" means torch.compile breaks no graph there
    decoded: int | None = None  # a cache fix: the decode step's cache position that matched generation

    @property
    def proven(self) -> bool:
        return self.exports and self.matches is not False

    def suffix(self) -> str:
        """What was proven, for the action's title."""
        if not self.checked:
            return f"(not checked: {self.reason})"
        if self.compiled:
            return self._compiled_suffix()
        if not self.exports:
            return f"(does not export: {self.reason})"
        if self.matches is False:
            return f"(exports, but {self.reason})"
        if self.matches is None:
            return f"(exports; {self.reason})" if self.reason else "(exports)"
        if self.refined is not None:
            return "(exports with the range torch derived; matches eager)"
        if self.decoded is not None:
            return (
                f"(exports; the prefill and the decode step at cache position {self.decoded} match"
                " eager generation's logits)"
            )
        if self.branches_checked == 2:
            return "(exports; matches eager on both branches)"
        if self.branches_checked == 1:
            return "(exports; matches eager on the example; no input reached the other branch)"
        return "(exports; matches eager)"

    def _compiled_suffix(self) -> str:
        if not self.exports:
            return f"(not proven: {self.reason})"
        if self.matches is False:
            return f"(no graph break there, but {self.reason})"
        if self.matches is None:
            return f"(no graph break there; {self.reason})"
        if self.branches_checked == 2:
            return "(no graph break there; matches eager on both branches)"
        return "(no graph break there; matches eager)"


def proof_job(
    doc: Document,
    fix: Fix,
    module: str | None,
    strict: bool | None,
    options: CheckOptions,
    placement: Placement | None = None,
) -> Job | None:
    """The verify job for `fix` on `doc`, or None when the patched file has nothing to export.
    A fix in a module another file exports or compiles (its route, check/routes.py: a site, or a
    parent file whose export records it) is proven by that file's call, with `doc` imported
    patched (`_through`); never on guessed inputs of `doc`'s own."""
    if fix.verify is None or fix.disabled:
        return None
    patched = fix.proposed(doc)
    found = discovery_of(patched)
    compiled = fix.verify.get("compile") is not None
    if compiled and module and module.endswith("@compile"):  # exportlens.compile = all: as compiled
        module = module.removesuffix("@compile")
    if placement is not None and module is not None:
        route = route_of(doc, placement, module)
        if route.elsewhere:
            return _through(route, doc, patched, fix, strict, options, compiled)
    subject = next((t for t in found.subjects if t.name == module), None)
    if subject is None and len(found.subjects) == 1:
        subject = found.subjects[0]
    if subject is not None and subject.part_of is not None:
        # a part's fix is proven the way the part is used: by exporting its parent (never a guess)
        subject = next((t for t in found.subjects if t.name == subject.part_of), subject)
    if subject is None or subject.inputs_kind == "none":
        return None
    if compiled and subject.compile is None:
        subject = dataclasses.replace(subject, compile=dict(AS_COMPILED))
    job = make_job(patched, subject, strict, options)
    job.purpose = f"verify:{fix.key}"  # proofs of different fixes never supersede each other
    job.all_failures = False
    spec: dict[str, Any] = dict(fix.verify)
    if spec.get("compare") == "original":
        old = discovery_of(doc)
        before = next((t for t in old.subjects if t.name == subject.name), None)
        if before is None or before.inputs_kind == "none":
            spec["compare"] = "self"
        else:
            spec["original"] = {
                "source": doc.text,
                "target": {"inputs": before.inputs},
                "load_until": old.load_until,
            }
    job.verify = spec
    return job


def _through(
    route: Route,
    doc: Document,
    patched: Document,
    fix: Fix,
    strict: bool | None,
    options: CheckOptions,
    compiled: bool,
) -> Job | None:
    """The proof run by the call of `route`'s file (from disk) that answers for the module: the
    candidate imports `doc` with the fix, the eager reference without (worker/job/verify.py); a
    compile fix: no break on the fix's lines of `doc`. None: that file has no such call now."""
    found = routed_subject(route, compiled)
    if found is None:
        return None
    there, subject = found
    job = make_job(there, subject, None if compiled else strict, options)
    job.purpose = f"verify:{fix.key}"
    job.all_failures = False
    spec: dict[str, Any] = dict(fix.verify or {})
    spec["compare"] = "original"
    spec["original"] = {
        "source": there.text,
        "target": {"inputs": subject.inputs},
        "load_until": discovery_of(there).load_until,
    }
    spec["elsewhere"] = {
        "path": doc.path,
        "module_name": import_context(doc.path, options.roots)[0],
        "source": patched.text,
        "original": doc.text,
    }
    job.verify = spec
    return job


def verdict(outcome: JobOutcome, fix: Fix) -> Proof:
    raw = outcome.raw.get("verify")
    compared = str((fix.verify or {}).get("compare", "self"))
    if not isinstance(raw, dict):
        reason = outcome.reason or (outcome.failure["message"] if outcome.failure else "") or outcome.status
        compiled = (fix.verify or {}).get("compile") is not None
        if outcome.status == "timeout":  # says nothing of whether the fixed code exports
            why = "its check ran out of the time limit (`timeoutSeconds`, `--timeout`)"
            return Proof(False, None, 0, why, compared, checked=False, compiled=compiled)
        why = f"the check {outcome.status}: {str(reason)[:200]}"
        return Proof(False, None, 0, why, compared, compiled=compiled)
    return Proof(
        bool(raw.get("exports")),
        raw.get("matches"),
        int(raw.get("branches_checked") or 0),
        str(raw.get("reason") or ""),
        compared,
        raw.get("refined"),
        compiled=(fix.verify or {}).get("compile") is not None,
        decoded=raw.get("decoded"),
    )
