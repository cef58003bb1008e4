"""`exportlens check PATH…`: the engine, headless, for terminals and CI."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import functools
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__
from .check.jobs import MODES, CheckOptions
from .check.plan import PlannedFile, plan_file
from .check.sites import SiteIndex
from .check.suppression import as_configured
from .check.warm_tracers import warm_tracers
from .codes import registered
from .config.files import excluded, not_python, walk
from .config.project import Project, project_of
from .config.settings import COMPILE_CHOICES, QUANTIZE, Settings
from .daemon_cli import add_daemon_parser, run_daemon_command
from .engine import Engine, EngineOptions
from .engine.process import WorkerError
from .findings import FileResult
from .fixes.apply_cli import conclude, fix_files
from .lowerings import LOWERINGS
from .persist.files import FileCache
from .persist.store import ResultStore, default_folder
from .platforms import exports_unsupported, static_results
from .report import render
from .report.coverage import coverage

if TYPE_CHECKING:  # the check's stack is imported once a file needs an export
    from .check.run import EarlyReport
from .report.once import said_once
from .spelling import code_argument

# 3: no error, but a module's check did not finish (a timeout): not known to export, so CI must
# not pass it quietly; the codes that mean it are the registry's `undecided` ones.
EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE, EXIT_UNDECIDED = 0, 1, 2, 3
# The flags' defaults are the settings' (config/settings.py declares each once).
DEFAULT = Settings()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="exportlens", description=__doc__)
    parser.add_argument("--version", action="version", version=f"exportlens {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="export every module in the files and report failures")
    check.add_argument("paths", nargs="+", metavar="PATH", help="Python files or folders")
    check.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    check.add_argument(
        "--mode",
        choices=MODES,
        default=None,
        help="tracer: non-strict (torch's default), strict (dynamo) or both; "
        "default: the export call's own strict=, else non-strict",
    )
    check.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="S",
        help=f"per module (default {DEFAULT.timeout_seconds:g})",
    )
    check.add_argument(
        "--memory-limit",
        type=int,
        default=None,
        metavar="MB",
        help="address-space cap per export, on top of the warm worker",
    )
    check.add_argument(
        "--meta-above",
        type=float,
        default=None,
        metavar="MB",
        help="export models whose weights exceed MB with meta weights, allocating nothing (default"
        f" {DEFAULT.meta_above_mb:g}; 0: never)",
    )
    check.add_argument(
        "--device",
        choices=("fake", "real", "cpu"),
        default=None,
        help="where tensors the code puts on a GPU go: fake tensors on that device (no GPU touched),"
        f" the real device, or the CPU with real values (default {DEFAULT.device}; docs/devices.md)",
    )
    check.add_argument(
        "--target",
        action="append",
        choices=LOWERINGS,
        default=None,
        help="also check that each clean export lowers to this target (repeatable): core-aten, onnx,"
        " aoti (compiles C++: slow); default: export only (docs/targets.md)",
    )
    check.add_argument(
        "--quantize",
        choices=QUANTIZE,
        default=None,
        help="the executorch target's program: float as exported (none, the default) or int8 by torchao's"
        " pt2e flow with the XNNPACK quantizer (xnnpack); docs/targets.md",
    )
    check.add_argument(
        "--compile",
        choices=COMPILE_CHOICES,
        default=None,
        help="which modules get a compile check (torch.compile's graph breaks and recompiles): those the"
        " code compiles (auto, the default), every module (all), none (off); docs/compile.md",
    )
    check.add_argument(
        "--python",
        default=None,
        metavar="EXE",
        help="interpreter with torch to run exports in (default: this one)",
    )
    check.add_argument(
        "--first-failure-only",
        action="store_true",
        help="stop at each module's first failure (no search for the others: faster)",
    )
    check.add_argument(
        "--exclude",
        action="append",
        default=None,
        metavar="GLOB",
        help="never check files matching GLOB, relative to the current folder (repeatable; replaces"
        " pyproject.toml's exclude)",
    )
    check.add_argument(
        "--force-exclude",
        action="store_true",
        help="skip a file named on the command line that exclude matches too (pre-commit names each)",
    )
    check.add_argument(
        "--ignore",
        action="append",
        default=None,
        type=code_argument,
        metavar="CODE",
        help="never report CODE (repeatable; replaces pyproject.toml's ignore)",
    )
    check.add_argument(
        "--no-cache",
        action="store_true",
        help="export everything again; by default an unchanged file (its text, the workspace files it"
        " imports, the interpreter and its packages, these options) is reported from the last run",
    )
    check.add_argument(
        "--root",
        metavar="DIR",
        help="the workspace the files are checked in, as the editor's folder: where export calls of"
        " other files and imports are looked for (default: the nearest folder above each file with a"
        " pyproject.toml or .git, else the current folder)",
    )
    check.add_argument(
        "--no-daemon",
        action="store_true",
        help="run exports in a worker of this run's own; by default the worker daemon of the"
        " interpreter is used, and started if none runs (docs/daemon.md)",
    )
    check.add_argument(
        "--daemon-idle",
        type=float,
        default=None,
        metavar="S",
        help=f"a worker daemon this run starts exits after S seconds unused (default"
        f" {DEFAULT.daemon_idle_seconds:g})",
    )
    check.add_argument(
        "--unchecked-exit",
        type=int,
        default=None,
        metavar="N",
        help="exit status when nothing was checked: no module could be, or no Python file (default"
        f" {DEFAULT.unchecked_exit}; 0: pass)",
    )
    check.add_argument("--fix", action="store_true", help="apply the proven fixes, then check again")
    check.add_argument("--diff", action="store_true", help="print the proven fixes as a diff; write nothing")
    check.add_argument("-v", "--verbose", action="store_true", help="log the worker's stderr")
    add_daemon_parser(commands)
    serve = commands.add_parser("serve", help="run the language server (stdio by default)")
    serve.add_argument("--tcp", action="store_true", help="listen on TCP instead of stdio (debugging)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=2087)
    serve.add_argument("-v", "--verbose", action="store_true")
    serve.add_argument(
        "--start-worker",
        action="store_true",
        help="start the export worker with this interpreter before the server's imports "
        "(a trusted workspace only: the extension passes it; early_worker.py)",
    )
    return parser


def explicit_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The settings the command line sets (they beat pyproject.toml's): field -> value."""
    given: dict[str, Any] = {
        "mode": args.mode,
        "timeout_seconds": args.timeout,
        "memory_limit_mb": args.memory_limit,
        "meta_above_mb": args.meta_above,
        "device": args.device,
        "compile": args.compile,
        "quantize": args.quantize,
        "python": args.python,
        "targets": tuple(dict.fromkeys(("export", *args.target))) if args.target is not None else None,
        "exclude": tuple(args.exclude) if args.exclude is not None else None,
        "ignore": tuple(args.ignore) if args.ignore is not None else None,
        "all_failures": False if args.first_failure_only else None,
        "daemon": False if args.no_daemon else None,
        "daemon_idle_seconds": args.daemon_idle,
        "unchecked_exit": args.unchecked_exit,
        "force_exclude": True if args.force_exclude else None,
    }
    return {name: value for name, value in given.items() if value is not None}


def file_settings(path: str, explicit: dict[str, Any]) -> tuple[Settings, Project]:
    """Defaults < the nearest pyproject.toml's [tool.exportlens] < the command line."""
    project = project_of(path)
    return dataclasses.replace(project.settings(DEFAULT), **explicit), project


def python_files(paths: list[str], explicit: dict[str, Any] | None = None) -> list[Path]:
    """The files named (but those `exclude` matches with `force-exclude`), and the Python files of
    the folders named that are the user's own (config/files.py: no virtual environment, hidden,
    build or git-ignored folder, no `exclude`)."""
    explicit = explicit or {}
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        settings, project = file_settings(raw, explicit)
        base = os.getcwd() if "exclude" in explicit else project.folder
        if path.is_dir():
            files += walk(raw, settings.exclude, base)
        elif path.is_file():
            if (skipped := not_python(raw)) is not None:
                print(f"exportlens: {skipped}", file=sys.stderr)
            elif not (settings.force_exclude and excluded(raw, settings.exclude, base)):
                files.append(path)
        else:
            raise FileNotFoundError(f"no such file or folder: {raw}")
    return files


def check_options(settings: Settings) -> CheckOptions:
    return CheckOptions(
        mode=settings.mode,
        all_failures=settings.all_failures,
        meta_above_mb=settings.meta_above_mb or None,
        device=settings.device,
        compile=settings.compile,
        quantize=settings.quantize,
        lowerings=tuple(dict.fromkeys(("export", *settings.targets))),  # export first: always run
        on_demand=True,  # `--target aoti` was asked for: it runs (a C++ compile per module)
        timeout=settings.timeout_seconds,  # each file's own limits (its pyproject.toml's)
        memory_mb=settings.memory_limit_mb or 0,
    )


async def run_check(args: argparse.Namespace) -> tuple[list[FileResult], dict[str, str]]:
    # Each file's settings are its project's (config/project.py), its exports' limits too (each
    # job carries them); the interpreter, one per run, is the command line's (no project key).
    settings = {str(f): file_settings(str(f), args.explicit)[0] for f in args.files}
    first = next(iter(settings.values()), dataclasses.replace(DEFAULT, **args.explicit))
    # No spare child, and the warm-up before the first job: the CLI's jobs come all at once.
    # A daemon keeps a spare child for the next run's first job; a worker of the run's own, none.
    limits = EngineOptions(
        python=first.python,
        timeout=first.timeout_seconds,
        memory_mb=first.memory_limit_mb,
        daemon=first.daemon,
        daemon_idle=first.daemon_idle_seconds,
    )
    cache = None
    if not args.no_cache:
        store = ResultStore(default_folder())
        cache = await asyncio.to_thread(FileCache, store, first.python, ())
    # Each file placed in its workspace as the editor places it: export calls and parent files in
    # other workspace files (reading them, running nothing).
    index = SiteIndex() if first.export_sites else None
    planned = await asyncio.to_thread(
        lambda: [plan_file(str(f), check_options(settings[str(f)]), index, args.root) for f in args.files]
    )
    warm = warm_tracers(
        (p.doc, p.options.mode, bool(p.placement.elsewhere()))
        for p in planned
        if not isinstance(p, FileResult)
    )
    engine = Engine(dataclasses.replace(limits, spares=first.daemon, warm_first=True, warm_tracers=warm))
    try:
        # With the cache, the worker starts with the first file that needs an export (none when
        # every file is unchanged) and the diagnosis stack is imported only then; an interpreter
        # without torch is refused at once, with the worker's reason, as without the cache.
        if cache is None or not cache.env.torch:
            await engine.worker()
        checks = [
            _check(engine, cache, p, settings[str(f)], _progress(args.format, p, settings[str(f)]))
            for f, p in zip(args.files, planned, strict=True)
        ]
        results = said_once(list(await asyncio.gather(*checks)))
        if args.fix or args.diff:  # each file's proven fixes, applied in turn (fixes/apply_cli.py)
            again = [functools.partial(_check, engine, cache, settings=settings[str(f)]) for f in args.files]
            args.fixed = await fix_files(list(zip(planned, results, again, strict=True)))
        info = engine.info
        daemon_used = engine.daemon
    finally:
        await engine.close()
    if cache is not None and cache.hits:
        print(
            f"exportlens: {cache.hits} of {len(args.files)} file(s) unchanged since the last check:"
            " their results come from the cache (--no-cache to export them again)",
            file=sys.stderr,
        )
    torch = info.get("torch") or (cache.env.torch if cache else None) or ""
    versions = {"torch": str(torch), "python": str(info.get("python") or first.python or sys.executable)}
    if daemon_used is not None:  # which daemon, and which of its clients this run was (--format json)
        versions["daemon_pid"], versions["daemon_clients"] = map(str, daemon_used)
    return results, versions


def _progress(
    output_format: str, planned: PlannedFile | FileResult, settings: Settings
) -> EarlyReport | None:
    """The text format's first refusals on stderr as they come (report/progress.py)."""
    if output_format != "text" or isinstance(planned, FileResult):
        return None
    from .report.progress import progress_printer

    return progress_printer(lambda found: as_configured(planned.doc, settings, found)[0], Path.cwd())


async def _check(
    engine: Engine,
    cache: FileCache | None,
    planned: PlannedFile | FileResult,
    settings: Settings,
    early: EarlyReport | None = None,
) -> FileResult:
    if isinstance(planned, FileResult):
        return planned  # a file that cannot be read: its finding says why
    if cache is not None:
        result = await cache.check(engine, planned, settings.results_key(), early)
    else:
        from .fixes.said import checked  # the diagnosis stack

        result = await checked(engine, planned, early)
    # What the user configured (suppression comments, ignore, severity): after the store, which
    # keeps what the check found.
    (result.diagnostics,) = as_configured(planned.doc, settings, result.diagnostics)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return EXIT_USAGE if exc.code else EXIT_CLEAN
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        stream=sys.stderr,
        format="%(name)s: %(message)s",
    )
    if args.command == "daemon":
        return run_daemon_command(args)
    if args.command == "serve":
        try:
            from .lsp.server import serve  # pygls is only imported when serving
        except ModuleNotFoundError as exc:
            if (exc.name or "exportlens").partition(".")[0] == "exportlens":
                raise  # our own bug, not a missing dependency
            print(
                f"exportlens: the language server needs {exc.name}, which is not installed here (the CLI"
                " does not): pip install 'exportlens[server]'",
                file=sys.stderr,
            )
            return EXIT_USAGE
        return serve(args)
    args.explicit = explicit_settings(args)
    try:
        args.files = python_files(args.paths, args.explicit)
    except FileNotFoundError as exc:
        print(f"exportlens: {exc}", file=sys.stderr)
        return EXIT_USAGE
    errors = sorted({e for f in args.files for e in project_of(str(f)).errors}, key=str)
    if errors:  # never a check on a configuration that does not say what the user meant
        print("\n".join(f"exportlens: {e}" for e in errors), file=sys.stderr)
        return EXIT_USAGE
    unsupported = exports_unsupported()
    if unsupported is not None:  # native Windows: said once, then what reading the files says
        print(f"exportlens: {unsupported}", file=sys.stderr)
        results, unexported = static_results(args.files)
        report(args.format, results, {"python": sys.executable})
        status = exit_status(results)
        return EXIT_UNDECIDED if status == EXIT_CLEAN and unexported else status
    try:
        results, versions = asyncio.run(run_check(args))
        if args.diff:  # ruff's: the diff only; 1 when a file would change, else 0
            return EXIT_FINDINGS if conclude(args.fixed, False, Path.cwd()) else EXIT_CLEAN
        if args.fix and conclude(args.fixed, True, Path.cwd()):
            args.fix = False  # the re-check of what --fix left: its report and exit status
            results, versions = asyncio.run(run_check(args))
    except WorkerError as exc:
        print(
            f"exportlens: {exc}\nexportlens: pick an interpreter that has torch with --python, "
            "or `pip install torch` into this one.",
            file=sys.stderr,
        )
        return EXIT_USAGE
    report(args.format, results, versions)
    status = exit_status(results)
    if status == EXIT_CLEAN and (not args.files or coverage(results, Path.cwd()).nothing_checked):
        # nothing was checked (no Python file, or no module could be): the configured status
        return file_settings(str((args.files or args.paths)[0]), args.explicit)[0].unchecked_exit
    return status


def report(output_format: str, results: list[FileResult], versions: dict[str, str]) -> None:
    try:
        sys.stdout.write(render(output_format, results, versions, cwd=Path.cwd()))
        sys.stdout.flush()
    except BrokenPipeError:  # `exportlens check . | head`: the reader has what it wanted
        # Python would report the broken pipe again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def exit_status(results: list[FileResult]) -> int:
    found = [d for r in results for d in r.diagnostics]
    if any(d.severity == "error" for d in found):
        return EXIT_FINDINGS
    return EXIT_UNDECIDED if any(registered(d.code).undecided for d in found) else EXIT_CLEAN
