"""Exceptions that only tracing raises: checked against eager (worker/capture/eager.py), then advised.

`user-exception` claims "the same happens in eager"; the worker ran the module eagerly on the same
inputs, so the claim is checked instead of assumed. What torch's own checks raise about traced
values (a `SymBool` passed where a `bool` must be) and what `torch.distributions` raises while
validating its arguments get advice of their own: the generic one would send the user looking for
an `if` or a bug their code does not have.  When each applies is `rules.py`'s REFINE.
"""

from __future__ import annotations

import re

from ..worker.wire.records import FailureRecord
from .kinds import Kind

_DISTRIBUTIONS = "/torch/distributions/"
_DISTRIBUTIONS_HINT = (
    "`torch.distributions` checks its arguments' values while it is built (`validate_args`), and "
    "traced values have none: construct it with `validate_args=False` (or call "
    "`torch.distributions.Distribution.set_default_validate_args(False)` before exporting)"
)
# Codes whose advice assumes the user's own code decides on values or calls the untraceable.
VALUE_CHECKS = {"data-dependent-branch", "data-dependent-guard", "untraceable-call", "user-exception"}
SYMBOLIC = re.compile(r"argument '(?P<arg>\w+)'.*must be (?P<want>\w+), not Sym(?P<got>Bool|Int|Float)")


def in_distributions(record: FailureRecord) -> bool:
    """`torch.distributions` raised: its name in the message, or one of its files in the stack."""
    frames = record.get("frames") or []
    return "torch.distributions." in str(record.get("message", "")) or any(
        _DISTRIBUTIONS in str(f.get("path", "")) for f in frames
    )


def distributions_kind(kind: Kind) -> Kind:
    code = "raised-only-when-traced" if kind.code == "user-exception" else kind.code
    return Kind(code, kind.detail, {**kind.fix, "hint": _DISTRIBUTIONS_HINT}, kind.where)


def symbolic_kind(kind: Kind, symbolic: re.Match[str]) -> Kind:
    """A traced `SymBool` / `SymInt` reached an argument that must be a plain value."""
    arg, want = symbolic["arg"], symbolic["want"]
    hint = (
        f"a size that is dynamic under your `Dim`s reached `{arg}`, which must be a plain `{want}`: "
        f"decide `{arg}` without the dynamic size (a constructor flag, `self.training`), or keep that "
        "dim static"
    )
    detail = f"`{arg}` got a traced `Sym{symbolic['got']}`, not a `{want}`"
    return Kind("raised-only-when-traced", detail, {**kind.fix, "hint": hint}, kind.where)


def eager_ran(record: FailureRecord) -> bool:
    """The worker ran the module eagerly on the same inputs, and it did not raise."""
    eager = record.get("eager")
    return eager is not None and eager["ok"] is True


def eager_ran_kind(kind: Kind) -> Kind:
    detail = f"{kind.detail}; eager runs these inputs without it" if kind.detail else ""
    return Kind("raised-only-when-traced", detail, kind.fix, kind.where)
