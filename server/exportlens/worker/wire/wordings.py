"""Torch's own words that ExportLens recognises, declared once for both processes.

The worker (capture, the search after a first failure) and the server (diagnosis) both decide
"is this torch's data-dependent refusal?" from these; a new torch message format is one entry
here.  Verified against torch 2.10-2.15 (docs/torch-versions.md).  Stdlib only: the worker loads it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# The exception a guard on a value read out of a tensor raises (torch.fx.experimental.symbolic_shapes).
GUARD_ON_DATA = "GuardOnDataDependentSymNode"
# Its message: 2.10-2.14 "Could not guard on data-dependent expression Eq(u0, 1) (unhinted: ...)";
# 2.15 also "Could not extract specialized integer from data-dependent expression u0 (...)".
GUARD_MESSAGE = "Could not guard on data-dependent expression"
GUARD_EXPRESSION = "data-dependent expression"
# The condition inside either message: "... expression Eq(u0, 1) (unhinted: ..." / "(it was ...".
GUARD_CONDITION = re.compile(r"data-dependent expression (.+?) \((unhinted|it was)")
# Exceptions torch raises while tracing (class-name prefixes): a refusal, never the user's code.
TORCH_RAISED = ("Torch", "Unsupported", "UserError", "GuardOnDataDependent")  # its subclasses too
# A custom op without a fake (meta) kernel: "... has no fake impl", "... fake kernel ...".
NO_FAKE_KERNEL = ("fake impl", "fake kernel")


def guard_on_data(names: Iterable[str], message: str) -> bool:
    """A data-dependent guard: by its exception among `names` (an MRO or a chain), or its message."""
    return GUARD_ON_DATA in names or GUARD_MESSAGE in message


def says_data_dependent(message: str) -> bool:
    """Any of torch's wordings of a data-dependent value ("data-dependent", "data dependent")."""
    lowered = message.lower()
    return "data-dependent" in lowered or "data dependent" in lowered


def guard_condition(message: str) -> str:
    """The condition a data-dependent guard message names, or ""."""
    m = GUARD_CONDITION.search(message)
    return m.group(1) if m else ""


def no_fake_kernel(message: str) -> bool:
    return any(words in message for words in NO_FAKE_KERNEL)
