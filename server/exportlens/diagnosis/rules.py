"""Which kind of failure a record is: ordered tables of rules, evaluated here and only here.

In each table the first rule whose predicate holds decides (a rule: a name, a predicate on the
record and its derived facts, the codes it yields; rule.py).  `CLASSIFY` (classification.py)
names the kind; `REFINE` corrects what the tracer's words alone get wrong (traced_only.py);
`AT_CULPRIT` what the culprit's text shows; `LATER` softens a later failure that hangs on the
first one's data-dependent value (later.py).  (A Dim's kind is refined once more where mapping.py
has found the line that added its guard.)  A rule yielding a code it does not declare fails
loudly: nothing silently becomes `export-error`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..findings import Finding
from ..worker.wire.records import FailureRecord
from .classification import CLASSIFY
from .facts import Facts
from .kind import Kind
from .later import CODE as POSSIBLE_LATER
from .later import shared_value, soften
from .rule import Failure, Rule, first_match
from .rule import rule as R
from .spec_shapes import shape_test
from .traced_only import (
    SYMBOLIC,
    VALUE_CHECKS,
    distributions_kind,
    eager_ran,
    eager_ran_kind,
    in_distributions,
    symbolic_kind,
)

__all__ = ["CLASSIFY", "classify", "kind_of", "later_findings"]


@dataclass(frozen=True)
class Classified:
    failure: Failure
    kind: Kind


def _symbolic(c: Classified) -> re.Match[str] | None:
    return SYMBOLIC.search(c.failure.message)


def _never() -> re.Match[str]:
    raise AssertionError("a rule's `then` ran although its `when` did not hold")


def _shape_var_test(c: Classified) -> Kind:
    cond = str(c.kind.fix.get("cond", ""))
    doc = c.failure.document
    return (shape_test(doc, c.failure.module, c.failure.facts.snippet, cond) if doc else None) or c.kind


# fmt: off
REFINE: tuple[Rule[Classified, Kind], ...] = (
    R("torch.distributions validates values", VALUE_CHECKS | {"raised-only-when-traced"},
      lambda c: c.kind.code in VALUE_CHECKS and in_distributions(c.failure.record),
      lambda c: distributions_kind(c.kind)),
    # An output torch cannot flatten is found after tracing: no traced value is involved.
    R("a traced Sym where a plain value must be", "raised-only-when-traced",
      lambda c: c.kind.code != "unflattenable-output" and _symbolic(c) is not None,
      lambda c: symbolic_kind(c.kind, _symbolic(c) or _never())),
    R("eager runs the same inputs", "raised-only-when-traced",
      lambda c: c.kind.code == "user-exception" and eager_ran(c.failure.record),
      lambda c: eager_ran_kind(c.kind)),
)
# fmt: on

# fmt: off
AT_CULPRIT: tuple[Rule[Classified, Kind], ...] = (
    # A ShapeVar dim (the spec API) is unbacked: a shape test on it fails as a data-dependent guard.
    R("a shape test on a ShapeVar", {"dim-range-narrowed", "data-dependent-guard"},
      lambda c: c.kind.code == "data-dependent-guard" and c.failure.facts.culprit_in_file, _shape_var_test),
)
# fmt: on


def kind_of(failure: Failure) -> Kind:
    """The kind of `failure`: classified, refined, and checked against the culprit's text."""
    kind = _classified(failure)
    kind = first_match(REFINE, Classified(failure, kind), _code) or kind
    return first_match(AT_CULPRIT, Classified(failure, kind), _code) or kind


def classify(record: FailureRecord, snippet: str = "", statement: str = "") -> Kind:
    """`CLASSIFY` alone, on a record without derived facts but the culprit's text."""
    return _classified(Failure(record, Facts(snippet=snippet, statement=statement)))


def _classified(failure: Failure) -> Kind:
    kind = first_match(CLASSIFY, failure, _code)
    if kind is None:  # CLASSIFY's last rule holds on every record: no fallback of another kind here
        raise AssertionError("no classification rule held")
    return kind


@dataclass(frozen=True)
class Later:
    first: FailureRecord  # the first failure's record
    record: FailureRecord  # a later one's, found by the search past the first
    finding: Finding  # what it maps to on its own
    head: Finding  # the first failure's finding


# fmt: off
LATER: tuple[Rule[Later, Finding], ...] = (
    R("reads the first failure's data-dependent value", POSSIBLE_LATER,
      lambda c: c.finding.severity == "error" and bool(shared_value(c.first, c.record)),
      lambda c: soften(c.head, c.finding, shared_value(c.first, c.record))),
)
# fmt: on


def later_findings(first: FailureRecord, findings: list[Finding]) -> list[Finding]:
    """`findings[0]` is the first failure's, the rest the search's (same order as `first["more"]`)."""
    if len(findings) < 2:
        return findings
    head = findings[0]
    later = zip(findings[1:], first.get("more") or [], strict=False)
    return [head, *(first_match(LATER, Later(first, r, f, head), _finding_code) or f for f, r in later)]


def _code(kind: Kind) -> str:
    return kind.code


def _finding_code(finding: Finding) -> str:
    return finding.code
