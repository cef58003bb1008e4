"""The table of figures `bench/all.py` prints: one row per figure of the performance issue.

Each row holds what was measured, the reference measured in the same run (the floor or a
peer), how the two compare, the issue's target and whether it is met.  The rows are built
from the reports of the bench scripts; nothing here measures.  One renderer (a padded
Markdown table) serves both the terminal and `bench/results/latest.md`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # the reports' types only: allfailures_cost imports torch
    from allfailures_cost import Cost
    from lsp_latency import LspReport
    from run import Report
    from scale import ScaleReport

Compare = Literal["diff", "ratio", "speedup"]
OPS = {"<=": "≤", ">=": "≥"}
COLUMNS = ("#", "figure", "measured", "reference (same run)", "compared", "target", "met?")


def number(value: float) -> str:
    """Three significant figures at most, never an exponent."""
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


@dataclass
class Figure:
    number: str  # the target's number in its issue ("18.1": issue 18's first target)
    name: str
    measured: float
    unit: str  # "ms", "s", "MB", "cores", "" for a count
    reference: float | None = None
    reference_name: str = ""
    compare: Compare | None = None  # diff: measured - reference; ratio: measured / reference;
    # speedup: reference / measured
    limit: tuple[str, float] | None = None  # ("<=" | ">=", bound) on `compared`, else on `measured`

    @property
    def compared(self) -> float | None:
        if self.compare is None or self.reference is None:
            return None
        if self.compare == "diff":
            return self.measured - self.reference
        if self.compare == "ratio":
            return self.measured / self.reference
        return self.reference / self.measured

    @property
    def met(self) -> bool | None:
        """None when the issue sets no target for the figure (it is reported only)."""
        if self.limit is None:
            return None
        value = self.measured if self.compare is None else self.compared
        if value is None:  # the reference was not measured in this run
            return None
        op, bound = self.limit
        return value <= bound if op == "<=" else value >= bound

    def with_unit(self, value: float) -> str:
        return f"{number(value)} {self.unit}" if self.unit else f"{value:.0f}"  # no unit: a count

    def compared_text(self) -> str:
        value = self.compared
        if value is None:
            return ""
        if self.compare == "diff":
            return f"{'+' if value >= 0 else '−'}{self.with_unit(abs(value))}"
        return f"{number(value)}× faster" if self.compare == "speedup" else f"{number(value)}×"

    def target_text(self) -> str:
        if self.limit is None:
            return "reported"
        op, bound = OPS[self.limit[0]], self.limit[1]
        if self.compare == "diff":
            return f"{op} ref + {bound:g} {self.unit}"
        if self.compare is not None:
            return f"{op} {bound:g}×" + (" faster" if self.compare == "speedup" else " ref")
        return f"{op} {bound:g} {self.unit}".rstrip()

    def met_text(self) -> str:
        return {True: "yes", False: "no", None: "n/a"}[self.met]

    def cells(self) -> tuple[str, ...]:
        reference = ""
        if self.reference is not None:
            reference = f"{self.with_unit(self.reference)} ({self.reference_name})"
        return (
            self.number,
            self.name,
            self.with_unit(self.measured),
            reference,
            self.compared_text(),
            self.target_text(),
            self.met_text(),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "figure": self.name,
            "measured": self.measured,
            "unit": self.unit,
            "reference": self.reference,
            "reference_name": self.reference_name,
            "compare": self.compare,
            "compared": self.compared,
            "target": self.target_text(),
            "met": self.met_text(),
        }


def markdown_table(figures: list[Figure]) -> str:
    """A Markdown table padded to line up in a terminal too."""
    rows = [COLUMNS, *(figure.cells() for figure in figures)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    right = {2, 4}  # numbers

    def line(cells: tuple[str, ...]) -> str:
        padded = [
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "| " + " | ".join(padded) + " |"

    rule = "|" + "|".join(
        ("-" * (w + 1) + ":") if i in right else "-" * (w + 2) for i, w in enumerate(widths)
    )
    return "\n".join([line(rows[0]), rule + "|", *(line(row) for row in rows[1:])])


def figures(
    quick: bool,
    bench: Report,
    scale: ScaleReport,
    lsp: LspReport,
    costs: list[Cost],
    params: float,
) -> list[Figure]:
    """The rows, in the issues' order; `params`: the large model's parameter count."""
    return [
        *edit_latency(lsp),
        *cold_path(bench),
        *all_failures(costs),
        *large_model(scale, quick, params),
        *memory(bench, lsp),
        *many_modules(scale, quick),
    ]


def edit_latency(lsp: LspReport) -> list[Figure]:
    """1: edit → published diagnostics through the server, against the warm in-process export."""
    out = []
    for row in lsp.rows:
        for pct, value, bound in (("p50", row.edit_p50_ms, 100.0), ("p95", row.edit_p95_ms, 250.0)):
            when = f"{row.pause_s:g} s pause before each edit" if row.pause_s else "edits back to back"
            name = f"edit → diagnostics {pct}, {row.model}, {when} (server, debounce 0)"
            out.append(Figure("18.4", name, value, "ms", row.floor_ms, "warm export", "diff", ("<=", bound)))
    return out


def cold_path(bench: Report) -> list[Figure]:
    """2: one check of the MLP against `python script.py` exporting it, in each tracer."""
    out = []
    for r in (r for r in bench.rows if r.model == "mlp"):
        name = f"check of the MLP, {r.mode} (engine p50)"
        out.append(
            Figure("18.5", name, r.engine_p50_s, "s", r.cold_s, "cold script", "speedup", (">=", 20.0))
        )
    return out


def all_failures(costs: list[Cost]) -> list[Figure]:
    """3: export + the search for more failures, against the same model exporting cleanly.

    One row per case: its worse tracer (all of them are in allfailures_cost.py's table)."""
    worst: dict[str, Cost] = {}
    for cost in costs:
        if cost.case not in worst or cost.over_clean > worst[cost.case].over_clean:
            worst[cost.case] = cost
    out = []
    for c in worst.values():
        name = f"all failures, {c.case} ({c.mode}; {c.extra + 1} found)"
        out.append(Figure("3", name, c.total_s, "s", c.clean_s, "clean export", "ratio", ("<=", 3.0)))
    return out


def large_model(scale: ScaleReport, quick: bool, params: float) -> list[Figure]:
    """4: the large model on meta weights, all failures off and on; real weights (if run) as the peer."""
    model = f"{params / 1e9:.2f}B-param model" + (f" ({scale.layers} layers, quick)" if quick else "")
    real = {c.all_failures: c for c in scale.large if c.weights == "real"}
    out = []
    for check in (c for c in scale.large if c.weights == "meta"):
        peer = real.get(check.all_failures)
        name = f"{model}, meta weights, all failures {'on' if check.all_failures else 'off'}"
        seconds, rss = (peer.seconds, peer.peak_rss_mb) if peer else (None, None)
        out.append(
            Figure("4", f"{name}: check", check.seconds, "s", seconds, "real weights", None, ("<=", 5.0))
        )
        if check.all_failures and check.first_s is not None:  # shown before the search for more
            out.append(Figure("4", f"{name}: first diagnostic", check.first_s, "s", limit=("<=", 5.0)))
        peak = check.peak_rss_mb
        out.append(
            Figure("4", f"{name}: job peak RSS", peak, "MB", rss, "real weights", None, ("<=", 1024.0))
        )
    return out


def memory(bench: Report, lsp: LspReport) -> list[Figure]:
    """5: hover from the cache, the server's RSS; the worker's idle RSS next to a plain torch process."""
    idle, torch = bench.worker_rss_idle_mb, bench.floor_rss_mb
    return [
        Figure("5", "hover p99, from the cache", lsp.hover_p99_ms, "ms", limit=("<=", 20.0)),
        Figure("5", "server RSS", lsp.server_rss_mb, "MB", limit=("<=", 80.0)),
        Figure("5", "worker RSS, idle", idle, "MB", torch, "torch process", "ratio"),
    ]


def many_modules(scale: ScaleReport, quick: bool) -> list[Figure]:
    """6: the many-modules file: first full check, re-check after one edit, cores used."""
    many = scale.many
    assert many is not None
    size = f"{many.modules} modules, {many.lines} lines" + (" (quick)" if quick else "")
    changed = float(len(many.reexported))
    cores = float(os.cpu_count() or 1)
    # Both cores busy: well above 1 (serial); not 2, as the caller and the worker's loop need some.
    return [
        Figure("6", f"first full check, {size}", many.full_s, "s"),
        Figure(
            "6", "re-check after editing one module", many.recheck_s, "s", many.full_s, "full check", "ratio"
        ),
        Figure(
            "6", "modules re-exported by that edit", changed, "", many.modules, "in the file", None, ("<=", 1)
        ),
        Figure(
            "6",
            "cores used, full check",
            many.cores_used,
            "cores",
            cores,
            "on the machine",
            None,
            (">=", 1.5),
        ),
    ]
