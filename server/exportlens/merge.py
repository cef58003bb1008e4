"""Mode `both`: one diagnostic per culprit, saying which tracer refused.

Strict (dynamo) and non-strict (fake tensors) disagree in both directions, so
a finding both raise is said once, and one only a single tracer raises says
the other one accepts the code.
"""

from __future__ import annotations

from dataclasses import replace

from .findings import Finding

TRACER_NAMES = {"strict": "strict (dynamo)", "non-strict": "non-strict (fake tensors)"}


def merge_tracers(findings: list[Finding], exported: dict[str, bool]) -> list[Finding]:
    """`exported[mode]` tells whether that tracer's export of the module succeeded."""
    merged: dict[tuple[str, int, int, str], Finding] = {}
    order: list[tuple[str, int, int, str]] = []
    for finding in findings:
        key = (finding.path, finding.range.start.line, finding.range.start.character, finding.code)
        if key in merged:
            first = merged[key]
            if first.mode != finding.mode:
                note = " (both tracers refuse)" if first.severity == "error" else ""
                merged[key] = replace(first, mode="both", message=first.message + note)
            continue
        merged[key] = finding
        order.append(key)
    result = []
    for key in order:
        finding = merged[key]
        other = {"strict": "non-strict", "non-strict": "strict"}.get(finding.mode or "")
        if other and exported.get(other) and finding.severity == "error":
            note = f" ({TRACER_NAMES[other]} exports this module)"
            finding = replace(finding, message=finding.message + note)
        result.append(finding)
    return result
