"""What each code is recognised by, per torch version: one entry per kind, strongest evidence first.

- `gb_ids`: dynamo graph-break registry ids (`gb0007`).  The worker reads them from the running
  torch (its `graph_break_registry.json`, or the message's documentation link), so they are the
  key that holds across versions; `gb_types` are the same breaks by name, for a record without id.
- `details`: (gb id, pattern) pairs: a graph break that means this code only when torch's
  explanation / debug context says so (a type that differs between versions for the same line).
- `exceptions`: exception class names in the record's MRO or chain.
- `texts`: last resort, matched against what torch says minus its hints and the user's source lines
  it quotes (2.10's hint "Use `torch.cond` ..." once turned every data-dependent `if` into a cond
  mismatch).
Procedural rules (constraint violations, data-dependent guards, where to point) live in classification.py;
differences that are torch's own behaviour are in docs/torch-versions.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Evidence:
    gb_ids: tuple[str, ...] = ()
    gb_types: tuple[str, ...] = ()
    details: tuple[tuple[str, str], ...] = ()
    exceptions: tuple[str, ...] = ()
    texts: tuple[str, ...] = ()


TABLE = {  # a plain assignment: tests/codes/test_codes_registry.py reads its keys as codes
    "data-dependent-branch": Evidence(
        gb_ids=("gb0170",),
        gb_types=("Data-dependent branching",),
        # 2.10: `if bool(t):` is refused as the builtin `bool` of a tensor.
        details=(("gb0059", r"builtin bool \[<class '[\w.]*TensorVariable'>"),),
        texts=("Dynamic control flow is not supported",),  # torch <= 2.6
    ),
    "unsupported-builtin": Evidence(
        gb_ids=("gb0059",),
        gb_types=("Failed to trace builtin operator",),
        texts=(r"BuiltinVariable\(",),  # torch 2.2: "call_function BuiltinVariable(print)"
    ),
    "untraceable-call": Evidence(
        gb_ids=("gb0007", "gb9193"),  # gb9193: 2.15's own break for time.time() & co.
        gb_types=("Attempted to call function marked as skipped", "Call to a time function"),
        # 2.14+: dynamo traces `random.random()`, then export refuses its value as a new input.
        texts=(r"Dynamo attempts to add additional input during export: .*RandomValueSource",),
    ),
    "unsupported-python": Evidence(
        gb_ids=("gb0156",),
        gb_types=("Unsupported method call",),
        # 2.10: a C-extension class built by library Python (json's encoder) is a skipped call.
        details=(("gb0007", r"qualname: [\w.]*\b__new__,"),),
    ),
    "observed-exception": Evidence(
        gb_ids=("gb0088",),
        gb_types=("Observed exception",),
        # The same lines (a tensor's hash, f-string or address used as a Python value) as other
        # versions refuse them: 2.10 as builtins / a method of the format string, 2.14+ as an id
        # value that cannot become a graph input.
        details=(
            ("gb0059", r"builtin (hash|id) \[<class '[\w.]*TensorVariable'>"),
            ("gb0059", r"DataPtrVariable"),
            ("gb0156", r"StringFormatVariable\("),
            ("gb0055", r"FakeIdVariable\("),
        ),
    ),
    "tensor-deepcopy": Evidence(
        gb_ids=("gb4198", "gb0179"),  # gb0179: 2.10's "copy.deepcopy()"
        gb_types=("Attempted to copy.deepcopy a tensor", "copy.deepcopy()"),
    ),
    "missing-fake-kernel": Evidence(
        gb_ids=("gb0090",),
        gb_types=("Operator does not support running with fake tensors",),
        # 2.13+ report a custom op without fake kernel as a failed fake-tensor call (gb4315).
        details=(("gb4315", r"no fake impl registered|UnsupportedOperatorException"),),
        exceptions=("UnsupportedOperatorException",),
        texts=("no fake impl", "register_fake"),
    ),
    "cond-branch-mismatch": Evidence(
        gb_ids=("gb0313",),
        gb_types=("torch.cond: differing branch outputs",),
        details=(("gb4315", r"torch\.cond"),),
        exceptions=("UncapturedHigherOrderOpError",),
        texts=(r"torch\.cond",),
    ),
    "cond-branch-aliases-input": Evidence(
        gb_ids=("gb0040",),
        gb_types=("Encountered aliasing during higher order op tracing",),
        texts=("aliasing during higher order op",),
    ),
    "tensor-numpy": Evidence(texts=(r"\.numpy\(\) is not supported",)),
}

# Checked in this order when several match: the specific before the general.
_ORDER = (
    "cond-branch-aliases-input",
    "cond-branch-mismatch",
    "missing-fake-kernel",
    "tensor-numpy",
    "untraceable-call",
    "data-dependent-branch",
    "unsupported-builtin",
)
_CUT = re.compile(r"\n\s*(from user code:|User stack:|Set TORCHDYNAMO_VERBOSE|The error above occurred)")
_HINT = re.compile(r"^\s*Hint:.*$", re.MULTILINE)


def said(message: str) -> str:
    """torch's own words: no hints, none of the user's source lines it quotes after them."""
    return _HINT.sub("", _CUT.split(message, maxsplit=1)[0])


def by_graph_break(gb_id: str | None, gb_type: str | None, message: str) -> str | None:
    """The code of a graph break, or None when no entry names it."""
    text = said(message)
    for code, evidence in TABLE.items():
        if any(gb_id == wanted and re.search(pattern, text) for wanted, pattern in evidence.details):
            return code
    for code, evidence in TABLE.items():
        if (gb_id and gb_id in evidence.gb_ids) or (not gb_id and gb_type in evidence.gb_types):
            return code
    return None


def by_exception_or_text(exceptions: set[str], message: str) -> str | None:
    """A record that is no graph break: its exception classes, else torch's words, code by code."""
    text = said(message)
    for code in _ORDER:
        evidence = TABLE[code]
        if exceptions & set(evidence.exceptions) or any(re.search(p, text) for p in evidence.texts):
            return code
    return None
