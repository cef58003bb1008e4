"""Every figure of the performance issues in one command, as a table of ratios.

    PYTHONPATH=server python bench/all.py [--quick] [--real-large] [--no-editor] [--out bench/results]

Runs, one measurement at a time: `run.py` (cold script, floor, engine per check; worker
RSS), `scale.py` (the 1.34B-parameter model on meta weights; a 2,000-line file of 50
modules), `lsp_latency.py` (edit → diagnostics and hover through the real server),
`spares.py` (spares forked while typing), `breakdown.py` (where an edit's milliseconds go per
stage), `first_diagnostic.py` (a fresh server opening a
failing file), `reopen.py` (results kept between sessions: the editor and the CLI),
`editor_first_diagnostic.ts` (activation → squiggle in code-server with the packaged
extension, built by `make bench`; --no-editor leaves it out, for a run without code-server)
and `allfailures_cost.py` and `compile_cost.py` (in this process, last: they import torch
here).  Each figure is
read against the floor or the peer measured in the same run, so a busy machine shows in
both; the load average before and after is printed too.  Prints the table, then the
machine and each script's own table; writes them to OUT/latest.md and OUT/latest.json.

--quick is a smoke run (few repetitions, scaled-down models, labelled as such): its
numbers show the benchmark works, not the figures of record.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import os
import platform
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "server"))  # exportlens, from a checkout

import run
import scale
from breakdown import Breakdown
from breakdown import measure as measure_breakdown
from exportlens.engine import Engine, EngineOptions
from opening_figures import Opening, opening_figures
from spares import SparesReport, measure_spares
from summary import Figure, figures, markdown_table

if TYPE_CHECKING:  # imported when their steps run (see there)
    from allfailures_cost import Cost
    from compile_cost import CompileCost
    from daemon_cli import DaemonCliReport
    from daemon_editor import DaemonEditorReport
    from first_diagnostic import FirstDiagnostic
    from lsp_latency import LspReport
    from reopen import ReopenReport

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Plan:
    """Sizes and repetitions; --quick scales them down."""

    quick: bool
    real_large: bool
    transformer_layers: int  # run.py's transformer
    large_layers: int  # scale.py's large model (24: 1.34B parameters)
    modules: int  # scale.py's many-modules file
    rechecks: int
    edits: int  # lsp_latency.py, per model
    hovers: int  # per model
    repeat: int  # allfailures_cost.py
    cost_layers: int  # allfailures_cost.py's transformer
    opens: int  # first_diagnostic.py and reopen.py: fresh servers per model
    editor: bool  # editor_first_diagnostic.ts

    @staticmethod
    def of(quick: bool, real_large: bool, editor: bool = True) -> Plan:
        if quick:
            return Plan(quick, real_large, 2, 4, 12, 2, 4, 30, 1, 2, 1, editor)
        return Plan(quick, real_large, 4, 24, 50, 5, 20, 300, 3, 12, 3, editor)


@dataclass
class Reports:
    bench: run.Report
    scale: scale.ScaleReport
    lsp: LspReport
    costs: list[Cost]
    opening: Opening
    breakdown: Breakdown
    compiled: CompileCost | None = None  # compile_cost.py: a compile check against a strict export
    daemon: DaemonCliReport | None = None  # daemon_cli.py: the CLI on one changed file, warm daemon
    daemon_editor: DaemonEditorReport | None = None  # daemon_editor.py: reopen, idle memory


def say(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


async def measure_with_engine(
    plan: Plan,
) -> tuple[run.Report, scale.ScaleReport, LspReport, SparesReport, Breakdown]:
    """The steps that need no torch in this process, sharing one engine (one worker start-up)."""
    engine = Engine(EngineOptions(timeout=600.0))
    try:
        bench = await run.run_benchmark(plan.quick, plan.transformer_layers, say, engine)
        say(f"scale: large model ({plan.large_layers} layers), {plan.modules} modules")
        big = await scale.measure_scale(
            plan.large_layers, plan.modules, plan.real_large, engine, plan.rechecks
        )
        say(f"language server: {plan.edits} edits, {plan.hovers} hovers per model")
        import lsp_latency  # here, not above: run.py's caller RSS is read without pygls' client side

        lsp = await lsp_latency.measure_lsp(plan.edits, plan.hovers, engine, plan.transformer_layers)
        say(f"spares while typing: {plan.edits} versions")
        spares = await measure_spares(plan.edits, engine)
        say(f"where an edit's milliseconds go: {plan.rechecks * 2} jobs per model and tracer")
        parts = await measure_breakdown(plan.rechecks * 2, plan.transformer_layers, engine)
    finally:
        await engine.close()
    return bench, big, lsp, spares, parts


async def measure_opening(plan: Plan) -> tuple[list[FirstDiagnostic], ReopenReport]:
    """Fresh servers, each with its own worker: nothing shared with the steps above."""
    import first_diagnostic  # pygls' client side, as lsp_latency
    import reopen

    say(f"first diagnostic: {plan.opens} fresh server(s) per model")
    first = await first_diagnostic.measure_first(plan.opens, plan.transformer_layers)
    say(f"reopen: {plan.opens} time(s) the CLI on examples/ and the editor")
    return first, await reopen.measure_reopen(plan.opens)


def measure(plan: Plan) -> Reports:
    bench, big, lsp, spares, parts = asyncio.run(measure_with_engine(plan))
    first, reopened = asyncio.run(measure_opening(plan))
    editor = {}
    if plan.editor:
        import first_diagnostic

        say(f"real editor: {plan.opens} fresh code-server(s) per model")
        editor = first_diagnostic.in_editor(plan.opens, plan.transformer_layers)
    say(f"all-failures cost: repeat {plan.repeat}, {plan.cost_layers}-layer transformer")
    import allfailures_cost  # imports torch into this process: last

    with quiet_stderr():  # torch logs each failing graph (thousands of lines); the worker pipes them away
        costs = allfailures_cost.measure_costs(plan.repeat, plan.cost_layers)
    import compile_cost
    from models import mlp

    say(f"compile check against strict export: repeat {plan.repeat}, MLP")
    compiled = compile_cost.measure(mlp(), plan.repeat)
    import daemon_cli

    say(f"CLI on one changed file, warm daemon and --no-daemon: {plan.opens} time(s)")
    daemon = daemon_cli.measure_daemon_cli(plan.opens)
    import daemon_editor

    say(f"editor reopen with a warm daemon and without, idle memory: {plan.opens} time(s)")
    reopened_warm = asyncio.run(daemon_editor.measure_daemon_editor(plan.opens))
    opening = Opening(first, editor, reopened, spares)
    return Reports(bench, big, lsp, costs, opening, parts, compiled, daemon, reopened_warm)


@contextlib.contextmanager
def quiet_stderr() -> Iterator[None]:
    """File descriptor 2 goes to /dev/null for a while (torch's C++ side writes there too)."""
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def raw_tables(plan: Plan, reports: Reports) -> dict[str, str]:
    """Each script's own table, as it prints it."""
    import allfailures_cost  # all already imported by `measure`
    import breakdown
    import first_diagnostic
    import lsp_latency
    import reopen
    import spares

    opening = reports.opening
    editor = "\n".join(f"{model:<12}  activation → squiggle {s:.2f} s" for model, s in opening.editor.items())
    return {
        "editor_first_diagnostic.ts: the real editor (code-server, packaged extension)": editor
        or "not run (--no-editor)",
        "first_diagnostic.py: a fresh server opens a failing file": first_diagnostic.table(opening.first),
        "reopen.py: results kept between sessions": reopen.table(opening.reopen),
        "spares.py: spares while typing": spares.table(opening.spares),
        "run.py: per model and tracer": run.table(reports.bench),
        "lsp_latency.py: through the language server": lsp_latency.table(reports.lsp),
        "breakdown.py: where an edit's milliseconds go": breakdown.table(reports.breakdown),
        "scale.py: large model, many modules": scale.table(reports.scale),
        "allfailures_cost.py: finding all failures": allfailures_cost.table(reports.costs, plan.repeat),
        "compile_cost.py: a compile check against a strict export": compile_table(reports),
        "daemon_cli.py: the CLI on one changed file": daemon_table(reports),
        "daemon_editor.py: the editor and the daemon": daemon_editor_table(reports),
    }


def daemon_table(reports: Reports) -> str:
    import daemon_cli

    return daemon_cli.table(reports.daemon) if reports.daemon else "not run"


def daemon_figures(reports: Reports) -> list[Figure]:
    """32: `exportlens check` of a tree with one changed file, warm daemon against --no-daemon."""
    d = reports.daemon
    if d is None:
        return []
    name = "CLI examples/, one file changed, warm daemon (wall)"
    return [Figure("32", name, d.warm_wall, "s", d.one_off_wall, "--no-daemon", None, ("<=", 1.5))]


def daemon_editor_table(reports: Reports) -> str:
    import daemon_editor

    return daemon_editor.table(reports.daemon_editor) if reports.daemon_editor else "not run"


def daemon_editor_figures(reports: Reports) -> list[Figure]:
    """32: a reopened window's first verified squiggle with a warm daemon; the idle daemon's memory."""
    d = reports.daemon_editor
    if d is None:
        return []
    reopen = "editor reopen, warm daemon: didOpen → first verified squiggle"
    memory = "idle daemon + worker + spare, PSS"
    return [
        Figure("32", reopen, d.warm_wall, "s", d.own_wall, "daemon off", None, ("<=", 1.5)),
        Figure("32", memory, d.daemon_memory.pss, "MB", d.own_memory.pss, "server's own worker + spare"),
    ]


def compile_table(reports: Reports) -> str:
    import compile_cost

    return compile_cost.table(reports.compiled) if reports.compiled else "not run"


def compile_figures(reports: Reports) -> list[Figure]:
    """31: the compile check of the MLP against its strict export's (CPU s, warm, in-process)."""
    c = reports.compiled
    if c is None:
        return []
    return [
        Figure("31", "compile check, MLP", c.compile, "s", c.export, "strict export", "ratio", ("<=", 1.5))
    ]


def machine(start_load: tuple[float, ...], end_load: tuple[float, ...], plan: Plan, torch: str) -> list[str]:
    commit = subprocess.run(
        ["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True, check=False
    ).stdout.strip()
    return [
        f"date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}; commit {commit or '?'}",
        f"torch {torch}, python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores",
        "load average (1, 5, 15 min): " + f"{' '.join(f'{x:.2f}' for x in start_load)} at the start, "
        f"{' '.join(f'{x:.2f}' for x in end_load)} at the end",
        f"run: {'--quick (smoke: few repetitions, scaled-down models)' if plan.quick else 'full'}"
        + (", --real-large" if plan.real_large else "")
        + ("" if plan.editor else ", --no-editor"),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="smoke run: few repetitions, smaller models")
    parser.add_argument("--real-large", action="store_true", help="also the large model with real weights")
    parser.add_argument("--no-editor", action="store_true", help="leave out the code-server measurement")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"), help="where latest.md/.json go")
    args = parser.parse_args(argv)
    plan = Plan.of(args.quick, args.real_large, editor=not args.no_editor)
    start_load = os.getloadavg()
    reports = measure(plan)
    end_load = os.getloadavg()
    params = scale.large_params(plan.large_layers)
    rows = opening_figures(reports.opening, reports.bench)
    rows += figures(plan.quick, reports.bench, reports.scale, reports.lsp, reports.costs, params)
    rows += compile_figures(reports)
    rows += daemon_figures(reports)
    rows += daemon_editor_figures(reports)
    facts = machine(start_load, end_load, plan, reports.bench.torch)
    raw = raw_tables(plan, reports)
    table = markdown_table(rows)
    print(table, "", *facts, sep="\n")
    for title, text in raw.items():
        print(f"\n{title}\n{text}")
    write(Path(args.out), plan, table, facts, raw, rows, reports)
    return 0


def write(
    out: Path,
    plan: Plan,
    table: str,
    facts: list[str],
    raw: dict[str, str],
    rows: list[Figure],
    reports: Reports,
) -> None:
    out.mkdir(parents=True, exist_ok=True)
    title = "ExportLens benchmark" + (
        ": quick run (smoke test, not the figures of record)" if plan.quick else ""
    )
    intro = (
        "Produced by `make bench` (`python bench/all.py`). Each figure is compared with a reference "
        "measured in the same run; `n/a`: the issue sets no target for that figure, it is reported."
    )
    if plan.quick:
        intro += (
            " **Quick run**: few repetitions and scaled-down models; run `make bench` on an idle machine."
        )
    sections = [f"# {title}", intro, table, "\n".join(f"- {fact}" for fact in facts)]
    sections += [f"## {name}\n\n```\n{text}\n```" for name, text in raw.items()]
    (out / "latest.md").write_text("\n\n".join(sections) + "\n", encoding="utf-8")
    data = {
        "plan": asdict(plan),
        "machine": facts,
        "figures": [row.to_json() for row in rows],
        "raw": {
            "run": reports.bench.to_json(),
            "lsp": asdict(reports.lsp),
            "scale": asdict(reports.scale),
            "allfailures": [asdict(cost) for cost in reports.costs],
            "compile": asdict(reports.compiled) if reports.compiled else None,
            "daemon": asdict(reports.daemon) if reports.daemon else None,
            "daemon_editor": asdict(reports.daemon_editor) if reports.daemon_editor else None,
            "opening": asdict(reports.opening),
            "breakdown": reports.breakdown,
        },
    }
    (out / "latest.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
