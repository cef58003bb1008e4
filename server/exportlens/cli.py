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

from .check.jobs import CheckOptions
from .check.plan import PlannedFile, plan_file
from .check.sites import SiteIndex
from .check.suppression import as_configured
from .check.warm_tracers import warm_tracers
from .cli_args import DEFAULT, build_parser, explicit_settings
from .codes import registered
from .config.files import excluded, not_python, walk
from .config.project import Project, project_of
from .config.settings import Settings
from .daemon_cli import run_daemon_command
from .engine import Engine, EngineOptions
from .engine.process import WorkerError
from .findings import FileResult
from .fixes.apply_cli import conclude, fix_files
from .persist.files import FileCache
from .persist.store import ResultStore, default_folder
from .platforms import exports_unsupported, static_results
from .report import render
from .report.coverage import coverage

if TYPE_CHECKING:  # the check's stack is imported once a file needs an export
    from .check.run import EarlyReport
from .report.once import said_once

# 3: no error, but a module's check did not finish (a timeout): not known to export, so CI must
# not pass it quietly; the codes that mean it are the registry's `undecided` ones.
EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE, EXIT_UNDECIDED = 0, 1, 2, 3


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
