"""A finding said once when several checked files find it (the CLI's report)."""

from __future__ import annotations

from ..findings import FileResult


def said_once(results: list[FileResult]) -> list[FileResult]:
    """A finding on another checked file, the same as that file's own result has (an export
    script's failure on the model file it exports: the model's check through that script finds it
    too), is said with that file only."""
    own = {
        r.path: {(d.range.start.line, d.range.start.character, d.code, d.message) for d in r.diagnostics}
        for r in results
    }
    for result in results:
        result.diagnostics = [
            d
            for d in result.diagnostics
            if d.path == result.path
            or (d.range.start.line, d.range.start.character, d.code, d.message) not in own.get(d.path, ())
        ]
    return results
