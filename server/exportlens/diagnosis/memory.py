"""Out of memory: a refused allocation is not the configured limit (issue 42, item 6).

The child's address space is capped only when `memoryLimitMb` is set; without it, a refused
allocation means the machine could not give that much (a 30 GB tensor built in `__init__`), and
saying "the memory limit" would send the user to a setting that is not there.
"""

from __future__ import annotations

import re

from .kind import Kind
from .rule import Failure

_SIZE = re.compile(r"tried to allocate (\d+) bytes")
_META = "build the model on `torch.device('meta')`"


def memory_kind(f: Failure) -> Kind:
    """The out-of-memory finding's words: the limit when one was set, else the refused allocation."""
    limit = f.record.get("memory_limit_mb")
    size = _SIZE.search(f.message)
    asked = f" of {_size(int(size[1]))}" if size else ""
    if limit:
        why = (
            f"the code ran out of the memory limit ({limit:,} MB, the `memoryLimitMb` setting /"
            f" `--memory-limit`){': an allocation' + asked + ' was refused' if asked else ''}"
        )
        hint = f"use smaller example inputs or {_META}, or raise the memory limit"
    else:
        why = (
            f"an allocation{asked} was refused: this machine could not give that much memory"
            " (no memory limit is set)"
        )
        hint = f"allocate less (smaller sizes or example inputs), or {_META} to check it without the memory"
    return Kind("out-of-memory", f.first_line[:200], {"why": why, "hint": hint})


def _size(count: int) -> str:
    for unit, scale in (("TB", 2**40), ("GB", 2**30), ("MB", 2**20)):
        if count >= scale:
            return f"{count / scale:,.1f} {unit}"
    return f"{count:,} bytes"
