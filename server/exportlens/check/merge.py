"""Mode `both`: one diagnostic per culprit, saying exactly which tracer refused.

Strict (dynamo) and non-strict (fake tensors) disagree in both directions. A finding both raise at
the same culprit is said once, as both tracers'; one that only a single tracer raises says what the
other did: exported the module, refused this same line for another reason, or stopped elsewhere.
The fix "or export in the other tracer" is offered only where that tracer is not known to refuse.
"""

from __future__ import annotations

from dataclasses import replace

from ..codes import registered
from ..findings import Finding

TRACER_NAMES = {"strict": "strict (dynamo)", "non-strict": "non-strict (fake tensors)"}
OTHER = {"strict": "non-strict", "non-strict": "strict"}
UNFINISHED = {"export-timeout", "worker-crashed", "out-of-memory"}


def merge_tracers(findings: list[Finding], exported: dict[str, bool]) -> list[Finding]:
    """`exported[mode]` tells whether that tracer's export of the module succeeded."""
    merged: dict[tuple[str, int, int, str], Finding] = {}
    order: list[tuple[str, int, int, str]] = []
    for finding in findings:
        key = (finding.path, finding.range.start.line, finding.range.start.character, finding.code)
        if key in merged:
            first = merged[key]
            if first.mode != finding.mode:
                refused = first.severity == "error" and registered(first.code).refusal
                note = " (both tracers refuse)" if refused else ""
                merged[key] = replace(first, mode="both", message=_without_switch(first) + note)
            continue
        merged[key] = finding
        order.append(key)
    result = []
    for key in order:
        finding = merged[key]
        other = OTHER.get(finding.mode or "")
        if other and finding.severity == "error" and registered(finding.code).refusal:
            message = finding.message if not _refuses(other, exported) else _without_switch(finding)
            finding = replace(finding, message=message + _other_tracer(finding, other, findings, exported))
        result.append(finding)
    return result


def _refuses(mode: str, exported: dict[str, bool]) -> bool:
    return mode in exported and not exported[mode]


def _without_switch(finding: Finding) -> str:
    """The message without its "or export in the other tracer": that tracer refuses too."""
    switch = registered(finding.code).switch
    return finding.message.replace(f", or {switch}.", ".", 1) if switch else finding.message


def _other_tracer(finding: Finding, other: str, findings: list[Finding], exported: dict[str, bool]) -> str:
    """What the tracer that did not raise `finding` did with the module."""
    name = TRACER_NAMES[other]
    if exported.get(other):
        return f" ({name} exports this module)"
    if other not in exported:
        return ""
    theirs = [f for f in findings if f.mode == other and f.severity == "error"]
    line = finding.range.start.line
    same_line = [f for f in theirs if f.path == finding.path and f.range.start.line == line]
    if same_line:
        return f" ({name} refuses this line too, as `{same_line[0].code}`)"
    unfinished = [f for f in theirs if f.code in UNFINISHED]
    if unfinished:
        return f" ({name} did not finish this module: `{unfinished[0].code}`)"
    if theirs:
        # Not "only this tracer stops here": the other one refused elsewhere and may never have
        # reached this line; another finding of the module may well say both tracers refuse.
        where = theirs[0]
        return (
            f" (seen in {TRACER_NAMES[finding.mode or '']} only; {name} refuses this module at line "
            f"{where.range.start.line + 1}, as `{where.code}`)"
        )
    return f" ({name} did not finish this module either)"
