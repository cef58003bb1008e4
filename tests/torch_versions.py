"""Where torch itself behaves differently from 2.13, what the tests expect instead.

Everything else must come out the same on every version the matrix runs (tools/versions.mk):
same code, same line, same columns.  Each difference names its section of docs/torch-versions.md,
which says what torch does differently (tests/test_torch_versions.py checks the sections exist).
"""

from __future__ import annotations

from dataclasses import dataclass

from exportlens.engine import Engine

# (code, text of the culprit on its line, or None: the export call); None: no error at all.
Expected = tuple[str, str | None] | None


@dataclass(frozen=True)
class Difference:
    section: str  # its heading's anchor in docs/torch-versions.md
    module: str
    mode: str  # "strict" | "non-strict"
    since: tuple[int, int]  # the torch versions it holds for, both ends included
    until: tuple[int, int]
    expected: Expected


DIFFERENCES = [
    # 2.10's strict export guards on the value an f-string formats; 2.13+ traces the print.
    Difference(
        "f-string-of-a-tensor-value",
        "PrintItem",
        "strict",
        (2, 10),
        (2, 10),
        ("data-dependent-guard", 'print(f"mean activation {h.mean().item()}")'),
    ),
    # Where dynamo stops on `x + hash(x) % 2`: 2.10 refuses `hash(x)` itself, 2.14+ the `+` that
    # uses its value (2.13: the `%`).
    Difference(
        "where-hash-stops", "HashTensor", "strict", (2, 10), (2, 10), ("observed-exception", "hash(x)")
    ),
    Difference(
        "where-hash-stops",
        "HashTensor",
        "strict",
        (2, 14),
        (2, 99),
        ("observed-exception", "x + hash(x) % 2"),
    ),
]


def version_of(engine: Engine) -> tuple[int, int]:
    """The worker's torch, (major, minor)."""
    major, minor = str(engine.info["torch"]).split(".")[:2]
    return int(major), int(minor)


def expected_for(module: str, mode: str, version: tuple[int, int], default: Expected) -> Expected:
    for difference in DIFFERENCES:
        if (difference.module, difference.mode) == (module, mode) and (
            difference.since <= version <= difference.until
        ):
            return difference.expected
    return default
