"""Which modules a check of a buffer exports, in which order: the scheduler's decision, pure.

- forced (open, save, the re-check command): every module;
- otherwise the modules whose result key changed (cache.py), or that have no result yet;
- a module checked through another file's export call runs that file from disk: only when forced;
- those whose class the edit touched go first, then the rest; a part goes with its parent (whose
  export records the inputs it is checked with), and so does a class no export is known to cover with
  the modules whose exports may cover it.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..covered import with_exporters
from ..discovery import Discovery, Target
from .cache import touched


def plan(
    found: Discovery,
    keys: Mapping[str, str],
    cached: Mapping[str, str],
    sites: Mapping[str, str],
    changed_lines: set[int],
    force: bool,
) -> tuple[list[Target], list[Target]]:
    """(first, rest): `cached` maps a module to the key of its cached result, `sites` a module to
    the other file whose export call checks it."""
    todo = [t for t in found.targets if force or cached.get(t.name) != keys[t.name]]
    todo = [t for t in todo if force or t.name not in sites]
    first_names = touched(found, changed_lines)
    # A part runs with its parent, whose export records its inputs: the two share a batch.
    first_names |= {t.part_of for t in found.targets if t.name in first_names and t.part_of}
    first_names |= {t.name for t in found.targets if t.part_of in first_names}
    # A class no export is known to cover goes with the modules whose exports may (covered.py).
    first_names |= {
        t.name for t in with_exporters([t for t in found.targets if t.name in first_names], found.targets)
    }
    return [t for t in todo if t.name in first_names], [t for t in todo if t.name not in first_names]
