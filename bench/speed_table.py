"""bench/speed_rows.py's figures of one row, and its table: each against the issue's target (43)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Measured:
    row: str
    torch_refusal_s: float | None  # when torch raised its first refusal (None: it exported all)
    torch_s: float
    torch_cpu_s: float
    torch_rss_mb: float
    torch_pss_mb: float
    torch_refusals: int
    first_s: float | None  # ExportLens's first finding on stdout (None: no error finding)
    complete_s: float
    cpu_s: float
    rss_mb: float
    pss_mb: float
    errors: int
    jobs: int
    stages: dict[str, float] = field(default_factory=dict)  # job seconds per stage label
    torch_stages: dict[str, float] = field(default_factory=dict)  # torch's run: exports per tracer, rest
    generated: bool = False
    load: float = 0.0  # the 1-minute load average when the row ended: a busy machine shows here
    status: int = 0

    @property
    def first_ratio(self) -> float | None:
        if self.first_s is None or not self.torch_refusal_s:
            return None
        return self.first_s / self.torch_refusal_s

    @property
    def complete_ratio(self) -> float:
        return self.complete_s / self.torch_s

    @property
    def first_met(self) -> bool | None:
        ratio = self.first_ratio
        return None if ratio is None else ratio <= 1.0

    @property
    def complete_met(self) -> bool:
        if self.generated:
            return self.complete_s <= self.torch_s + 2.0
        return self.complete_ratio <= 1.5


def _s(value: float | None, unit: str = "") -> str:
    return "-" if value is None else f"{value:.1f}{unit}"


def _met(value: bool | None) -> str:
    return {True: "yes", False: "NO", None: "n/a"}[value]


HEADER = (
    "row",
    "torch refusal s",
    "torch s",
    "first s",
    "first/refusal",
    "met",
    "complete s",
    "complete/torch",
    "met",
    "CPU s (torch)",
    "RSS MB (torch)",
    "PSS MB (torch)",
)


def table(rows: list[Measured]) -> str:
    """One line per row, then where its job seconds went."""
    lines: list[tuple[str, ...]] = [HEADER]
    stages: list[str] = []
    for m in rows:
        limit = "+2s" if m.generated else "1.5x"
        lines.append(
            (
                m.row,
                _s(m.torch_refusal_s),
                _s(m.torch_s),
                _s(m.first_s),
                _s(m.first_ratio, "x"),
                _met(m.first_met),
                _s(m.complete_s),
                f"{m.complete_ratio:.2f}x",
                f"{_met(m.complete_met)} ({limit})",
                f"{m.cpu_s:.0f} ({m.torch_cpu_s:.0f})",
                f"{m.rss_mb:.0f} ({m.torch_rss_mb:.0f})",
                f"{m.pss_mb:.0f} ({m.torch_pss_mb:.0f})",
            )
        )
        spent = ", ".join(f"{k} {v:.1f}" for k, v in m.stages.items() if v >= 0.05)
        stages.append(
            f"{m.row}: {m.jobs} jobs, {m.errors} error line(s) (torch: {m.torch_refusals} "
            f"refusal(s)), load {m.load:.1f}; job s: {spent or 'none stored'}"
        )
        if m.torch_stages:
            torch = ", ".join(f"{k} {v:.1f}" for k, v in m.torch_stages.items() if v >= 0.05)
            stages.append(f"  torch's run s: {torch}")
    widths = [max(len(line[i]) for line in lines) for i in range(len(HEADER))]
    text = ["  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) for line in lines]
    return "\n".join([*text, "", "where the jobs' seconds go (summed over jobs, 2 at a time):", *stages])
