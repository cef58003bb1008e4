"""Failures on guessed inputs are never errors: the guess (from the first layer) may be wrong.

A class with no inputs of its own is exported with inputs built from its first layer
(`nn.Linear(64, 64)` -> `torch.randn(2, 64)`). When that export fails, the culprit is as likely
the guess as the code (`B, T, C = x.shape` on a 2-D tensor), so the user gets one information
finding that says what torch said and how to give real inputs.
"""

from __future__ import annotations

from ..codes import registered
from ..discovery import Subject
from ..findings import Finding

CODE = "guessed-inputs-failed"


def soften_guessed(findings: list[Finding], subject: Subject) -> list[Finding]:
    """`findings` of a module checked on guessed inputs: its errors become one information finding."""
    if subject.inputs_kind != "inferred":
        return findings
    errors = [f for f in findings if f.severity == "error"]
    if not errors:
        return findings
    first = errors[0]
    more = f" ({len(errors) - 1} more failure(s) on the same guess.)" if len(errors) > 1 else ""
    guess = subject.inputs.get("expr", "")
    # a compile check: torch.compile's words (docs/compile.md)
    said, what = ("torch.compile: ", "compiled call") if first.mode == "compile" else ("", "export")
    message = (
        f"{said}ExportLens guessed inputs for `{subject.name}` (`{guess}`, from its first layer) and the "
        f"{what} failed on them — maybe because of the guess, not your code. What torch said: "
        f"{first.message.removeprefix(said)}{more}"
        f" To check `{subject.name}` for real, {registered(CODE).fix}."
    )
    softened = Finding(
        path=first.path,
        range=first.range,
        severity=registered(CODE).severity,
        code=CODE,
        message=message,
        module=first.module or subject.name,
        mode=first.mode,
        related=first.related,
        fix={"guessed_from": first.code},
    )
    return [softened, *(f for f in findings if f.severity != "error")]
