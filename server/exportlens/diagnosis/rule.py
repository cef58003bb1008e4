"""What a classification rule is (a name, a predicate, the codes it yields) and what it reads.

The tables, and the one place they are evaluated, are `rules.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Generic, TypeVar

from ..codes import UnknownCodeError, registered
from ..document import Document
from ..worker.wire.records import FailureRecord
from .facts import Facts
from .kind import first_line

In = TypeVar("In")
Out = TypeVar("Out")


@dataclass(frozen=True)
class Rule(Generic[In, Out]):
    """When `when` holds on a case, `then` makes the result; its code is one of `codes`, which must
    be registered (a rule with an unknown code cannot be made)."""

    name: str
    codes: frozenset[str]  # what it can yield
    when: Callable[[In], bool]
    then: Callable[[In], Out]

    def __post_init__(self) -> None:
        for code in self.codes:
            registered(code)


def first_match(rules: Sequence[Rule[In, Out]], case: In, code_of: Callable[[Out], str]) -> Out | None:
    """What the first rule whose predicate holds on `case` yields; None when none holds."""
    for rule in rules:
        if rule.when(case):
            out = rule.then(case)
            if code_of(out) not in rule.codes:
                raise UnknownCodeError(f"rule {rule.name!r} yielded {code_of(out)!r}, not one of its codes")
            return out
    return None


def rule(
    name: str, codes: str | set[str], when: Callable[[In], bool], then: Callable[[In], Out]
) -> Rule[In, Out]:
    return Rule(name, frozenset({codes} if isinstance(codes, str) else codes), when, then)


@dataclass
class Failure:
    """A failure record, what is derived beside it, and what the rules read of it."""

    record: FailureRecord
    facts: Facts = field(default_factory=Facts)
    document: Document | None = None  # the checked buffer, and its module: for the spec API's shape tests
    module: str = ""

    @cached_property
    def message(self) -> str:
        return str(self.record.get("message", ""))

    @cached_property
    def mro(self) -> set[str]:
        return set(self.record.get("exc_mro") or [self.record.get("exc_type", "")])

    @cached_property
    def chained(self) -> set[str]:
        return self.mro | {str(c.get("exc_type", "")) for c in self.record.get("chain") or []}

    @property
    def exc_type(self) -> str:
        return str(self.record.get("exc_type", ""))

    @property
    def stage(self) -> str:
        return str(self.record.get("stage", "export"))

    @property
    def first_line(self) -> str:
        return first_line(self.message)

    @property
    def error(self) -> str:
        """`ValueError: <torch's first line>`."""
        return f"{self.exc_type}: {self.first_line}"

    @property
    def raw_error(self) -> str:
        """The same as `error`, with the record's exception type as it is (`None` when missing)."""
        return f"{self.record.get('exc_type')}: {self.first_line}"

    @property
    def has_graph_break(self) -> bool:
        return bool(self.record.get("gb_type") or self.record.get("gb_id"))
