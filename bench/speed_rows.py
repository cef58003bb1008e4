"""Speed on real code (issue 43): ExportLens's check of a script against torch's own run of it.

    .venv/bin/python bench/speed_rows.py [--case NAME ...] [--slow] [--modules 100]
        [--mode both|non-strict|strict] [--json OUT]

Rows: every export script of the real-code corpus (tests/data/realcode/corpus) whose case torch
refuses somewhere (tests/realcode_expected.py), those of the slow cases (SLOW below; a case without
an export script: its compile script), and a generated file of `--modules` small modules, one with a
data-dependent branch, exported by its `__main__` loop (many_file.py). `--slow` adds the exports
realcode_expected marks slow (a minute of torch each). `--case` (repeatable) keeps the rows of that
case, or the one named (`sam/export_sam_any_size.py`, `many100`). `--mode`: the tracers of both
runs (default both: the issue's reference; `non-strict` is a user's plain run of the script).

Each row, one run after the other in the same minutes, each a fresh process:
- torch: the script as `__main__` with the venv's python, each export call exported non-strict then
  strict (bench/realcode_truth.py's recorder; `--mode` picks); its refusal time is when torch
  raised the first one;
- ExportLens: the real CLI, `exportlens check SCRIPT --format text --mode MODE --no-daemon --root
  CASE` with an empty results store (EXPORTLENS_CACHE_DIR, a new temp folder), otherwise the
  default settings; the first finding is when the first `error[...]` line reaches its stdout or its
  stderr's early line (`exportlens: found, still checking: ...`), whichever comes first; the
  complete result when the process ends.
Per row: both times, CPU (the whole process tree), peak RSS (its largest process) and peak tree
PSS (speed_probe.py), the ratios ExportLens / torch against the issue's targets (first finding <=
torch's refusal; complete <= 1.5x torch's run, for the generated file <= torch's run + 2 s), and
where the jobs' seconds go: the worker's `timings` per stage (worker/job/child.py `tick`), read
back from the results store the run left, summed over the jobs (two run at a time).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path[:0] = [str(ROOT / "server"), str(ROOT), str(BENCH)]  # exportlens, tests/, bench/

from exportlens.report.progress import PREFIX as EARLY_PREFIX  # noqa: E402
from speed_probe import Probe, probe  # noqa: E402
from speed_table import Measured, table  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "realcode" / "corpus"
SLOW = ("sam", "whisper", "swin", "mamba", "yolov3", "detr")  # slow ones that torch exports too
FINDING = re.compile(r":\d+:\d+: error\[")
# (timings key, label) in the order a job runs them; export is split by tracer.
STAGES = (
    ("fork", "fork"),
    ("load", "import"),
    ("inputs", "build"),
    ("export", "export"),
    ("summary", "summary"),
    ("failure", "after-failure"),  # locate the line, the eager pass, the parts' inputs
    ("more_failures", "later-failures"),
    ("parts", "parts"),
    ("targets", "lowering"),
    ("gpu_path", "gpu-path"),
    ("compile", "compile"),
)


@dataclass(frozen=True)
class Row:
    name: str  # case/script
    folder: Path
    script: Path
    generated: bool = False


def corpus_rows(slow: bool) -> list[Row]:
    from tests.realcode_expected import EXPORTS

    failing = {e.case for e in EXPORTS if e.non_strict or e.strict}
    slow_scripts = {(e.case, e.script) for e in EXPORTS if e.slow}
    rows = []
    for folder in sorted(p for p in CORPUS.iterdir() if p.name in failing or p.name in SLOW):
        scripts = sorted(folder.glob("export_*.py")) or sorted(folder.glob("compile_*.py"))
        for script in scripts:
            if (folder.name, script.name) in slow_scripts and not slow:
                continue
            rows.append(Row(f"{folder.name}/{script.name}", folder, script))
    return rows


def selected(rows: list[Row], wanted: list[str] | None) -> list[Row]:
    if not wanted:
        return rows
    return [r for r in rows if r.name in wanted or r.name.split("/")[0] in wanted]


def torch_run(row: Row, tmp: Path, mode: str) -> tuple[Probe, list[dict[str, Any]]]:
    """The script as `__main__`, each export call in the tracers of `mode`; one JSON line each."""
    argv = [sys.executable, str(Path(__file__).resolve()), "--torch-child", str(row.script), "--mode", mode]
    env = {**os.environ, "PYTHONPATH": ""}
    run = probe(argv, row.folder, env, tmp / "torch.stderr")
    records = []
    for at, line in run.lines:
        try:
            record = json.loads(line) if line.startswith('{"line"') else None
        except ValueError:  # the script's own output
            record = None
        if isinstance(record, dict):
            records.append({**record, "at": at})
    return run, records


def exportlens_run(row: Row, tmp: Path, mode: str) -> tuple[Probe, list[dict[str, Any]]]:
    """The real CLI, an empty store; the module results it stored (their `timings`)."""
    store = tmp / "store"
    cli = Path(sys.executable).parent / "exportlens"
    argv = [str(cli), "check", str(row.script), "--format", "text", "--mode", mode, "--no-daemon"]
    argv += ["--root", str(row.folder)]
    env = {**os.environ, "EXPORTLENS_CACHE_DIR": str(store)}
    run = probe(argv, row.folder, env, tmp / "exportlens.stderr")
    results = []
    for stored in sorted(store.glob("v1/*.cli.json")):
        raw = json.loads(stored.read_text(encoding="utf-8"))
        for module in raw.get("modules", {}).values():
            results.extend(module.get("results", []))
    return run, results


def stage_seconds(results: list[dict[str, Any]]) -> dict[str, float]:
    """Job seconds per stage label, summed over the stored module results (export per tracer)."""
    out: dict[str, float] = {}
    for result in results:
        timings = result.get("timings") or {}
        for key, label in STAGES:
            if key in timings:
                if key == "export":
                    label = "export-strict" if result.get("mode") == "strict" else "export-nonstrict"
                out[label] = out.get(label, 0.0) + float(timings[key])
    return out


def torch_stages(records: list[dict[str, Any]], wall: float) -> dict[str, float]:
    """torch's run: seconds in each tracer's exports, and the rest (python, import torch, the
    script's own building of models and inputs)."""
    out = {"export-nonstrict": 0.0, "export-strict": 0.0}
    for record in records:
        if record.get("mode") in ("non-strict", "strict"):
            out["export-" + record["mode"].replace("-", "")] += float(record.get("seconds") or 0.0)
    out["rest"] = wall - sum(out.values())
    return out


def first_finding(ours: Probe) -> float | None:
    """When the first refusal reached the user: the report's first `error[` line on stdout, or the
    early line the CLI writes on stderr as soon as a module's job has it (report/progress.py)."""
    report = [at for at, line in ours.lines if FINDING.search(line)]
    early = [at for at, line in ours.err_lines if line.startswith(EARLY_PREFIX) and FINDING.search(line)]
    return min(report[:1] + early[:1], default=None)


def measure_row(row: Row, mode: str) -> Measured:
    with tempfile.TemporaryDirectory(prefix="exportlens-speed-") as name:
        tmp = Path(name)
        reference, records = torch_run(row, tmp, mode)
        refused = [r for r in records if r["verdict"] not in ("exported", "script-error")]
        ours, results = exportlens_run(row, tmp, mode)
    firsts = [at for at, line in ours.lines if FINDING.search(line)]
    first = first_finding(ours)
    if ours.status not in (0, 1):
        say(f"{row.name}: exportlens exited {ours.status}: {ours.stderr_tail[-400:]}")
    return Measured(
        row=row.name,
        torch_refusal_s=refused[0]["at"] if refused else None,
        torch_s=reference.wall_s,
        torch_cpu_s=reference.cpu_s,
        torch_rss_mb=reference.peak_rss_mb,
        torch_pss_mb=reference.peak_tree_pss_mb,
        torch_refusals=len(refused),
        first_s=first,
        complete_s=ours.wall_s,
        cpu_s=ours.cpu_s,
        rss_mb=ours.peak_rss_mb,
        pss_mb=ours.peak_tree_pss_mb,
        errors=len(firsts),
        jobs=len(results),
        stages=stage_seconds(results),
        torch_stages=torch_stages(records, reference.wall_s),
        generated=row.generated,
        load=os.getloadavg()[0],
        status=ours.status,
    )


def say(message: str) -> None:
    print(f"[speed] {message}", file=sys.stderr, flush=True)


TRACERS = {"both": (False, True), "non-strict": (False,), "strict": (True,)}  # mode -> strict= values


def torch_child(script: Path, mode: str) -> None:
    """This process is torch's run: each export's verdict on stdout as torch gives it."""
    from realcode_truth import GuardLog, run_script  # imports torch: here only

    def tell(record: dict[str, Any]) -> None:
        print(json.dumps({k: record.get(k) for k in ("line", "mode", "verdict", "seconds")}), flush=True)

    records = run_script(script.resolve(), script.resolve().parent, GuardLog(), tell, TRACERS[mode])
    for record in records:
        if record["verdict"] == "script-error":
            tell(record)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--case", action="append", help="a case or case/script (repeatable)")
    parser.add_argument("--slow", action="store_true", help="also the exports marked slow")
    parser.add_argument("--modules", type=int, default=100, help="modules of the generated file")
    parser.add_argument(
        "--mode", choices=tuple(TRACERS), default="both", help="the tracers, the CLI's and torch's"
    )
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--torch-child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.torch_child:
        torch_child(Path(args.torch_child), args.mode)
        return 0
    from many_file import many_source  # scale.py's block: exportlens's engine, not in torch's child

    measured = []
    with tempfile.TemporaryDirectory(prefix="exportlens-many-") as many:
        generated = Path(many) / f"many{args.modules}.py"
        generated.write_text(many_source(args.modules), encoding="utf-8")
        rows = [*corpus_rows(args.slow), Row(generated.stem, generated.parent, generated, True)]
        for row in selected(rows, args.case):
            started = time.perf_counter()
            measured.append(measure_row(row, args.mode))
            say(f"{row.name}: {time.perf_counter() - started:.0f} s, load {os.getloadavg()[0]:.1f}")
    print(table(measured))
    print(f"\nload average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.json:
        figures = [
            {**asdict(m), "first_ratio": m.first_ratio, "complete_ratio": m.complete_ratio} for m in measured
        ]
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
