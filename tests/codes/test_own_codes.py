"""ExportLens's own codes (`Code.own`: no torch verdict) are never errors (issue 40, item 2)."""

from __future__ import annotations

import pytest

from exportlens.codes import CODES
from exportlens.codes.model import Code

# Each way ExportLens can fail to reach torch's verdict, and the code it is said as.
OWN = (
    "inputs-error",
    "module-init-error",
    "needs-real-device",
    "export-timeout",
    "internal-error",
    "no-example-inputs",
    "guessed-inputs-failed",
    "recorded-inputs-failed",
    "not-a-module",
    "notebook-skipped-name",
)


def test_the_codes_of_exportlens_own_failures_are_own_and_never_errors() -> None:
    assert all(CODES[code].own for code in OWN), [c for c in OWN if not CODES[c].own]
    assert not [c.code for c in CODES.values() if c.own and c.severity == "error"]


def test_an_own_code_cannot_be_declared_an_error() -> None:
    with pytest.raises(ValueError, match="cannot be an error"):
        Code("made-up", "why", "fix", severity="error", tracer=None, own=True)
