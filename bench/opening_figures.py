"""Issue 18's rows of the benchmark table: opening a failing file, reopening, spares while typing.

Built from the reports of first_diagnostic.py, editor_first_diagnostic.ts (run by all.py),
reopen.py and spares.py; nothing here measures.  all.py puts them first in the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from summary import Figure

if TYPE_CHECKING:
    from first_diagnostic import FirstDiagnostic
    from reopen import ReopenReport
    from run import Report
    from spares import SparesReport


@dataclass
class Opening:
    """Issue 18's opening figures: fresh server, real editor, reopen, spares while typing."""

    first: list[FirstDiagnostic]
    editor: dict[str, float]  # model -> activation → squiggle, s (editor_first_diagnostic.ts)
    reopen: ReopenReport
    spares: SparesReport


FIRST_LIMIT = {"mlp": 5.0, "transformer": 8.0}  # s, issue 18 target 1


def opening_figures(opening: Opening, bench: Report) -> list[Figure]:
    """18.1: open a failing file → its first diagnostic, in the real editor and through a fresh
    server, next to the cold script; 18.2/18.3: reopen and the CLI from the store; 18.6: spares
    forked while typing."""
    cold = {r.model: r.cold_s for r in bench.rows if r.mode == "non-strict"}
    out = []
    for model, seconds in opening.editor.items():
        name = f"first squiggle, {model}, real editor (activation → squiggle, fresh user data)"
        out.append(
            Figure(
                "18.1", name, seconds, "s", cold.get(model), "cold script", None, ("<=", FIRST_LIMIT[model])
            )
        )
    for row in opening.first:
        name = f"first diagnostic, {row.model}, fresh server (its start → published)"
        limit = ("<=", FIRST_LIMIT[row.model])
        out.append(Figure("18.1", name, row.from_start, "s", cold.get(row.model), "cold script", None, limit))
    r = opening.reopen
    out += [
        Figure(
            "18.2",
            "reopen: first diagnostics (stored, fresh server)",
            r.reopen_first,
            "s",
            r.open_first,
            "first open",
            None,
            ("<=", 1.0),
        ),
        Figure(
            "18.3",
            "CLI examples/, unchanged tree (from the store)",
            r.cli_unchanged,
            "s",
            r.cli_empty,
            "empty store",
            None,
            ("<=", 1.0),
        ),
        Figure(
            "18.6",
            f"spares forked while typing ({opening.spares.edits} versions, "
            f"{opening.spares.interval_s:g} s apart)",
            opening.spares.during,
            "",
            opening.spares.after,
            "in the pause after",
            None,
            ("<=", 0.0),
        ),
    ]
    return out
