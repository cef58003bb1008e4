"""A misspelled name's nearest known one, for the messages that refuse it (codes, settings keys)."""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Iterable, Mapping

from .codes import CODES


def did_you_mean(word: str, known: Iterable[str], meant: Mapping[str, str] | None = None) -> str:
    """` (did you mean 'x'?)` for the closest of `known` to `word`, or "" when none is close;
    `meant` names the one to suggest for a spelling (another client's name for a setting)."""
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean {(meant or {}).get(close[0], close[0])!r}?)" if close else ""


def code_argument(value: str) -> str:
    """A command-line option's code (`--ignore CODE`): a registered one, else a usage error."""
    if value not in CODES:
        raise argparse.ArgumentTypeError(
            f"unknown code {value!r}{did_you_mean(value, CODES)}: see docs/codes.md"
        )
    return value
