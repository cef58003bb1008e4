"""`exportlens check PATH…`: the engine, headless, for terminals and CI."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
import os
import sys
from pathlib import Path

from . import __version__
from .codes import registered
from .engine import Engine, EngineOptions
from .engine.process import WorkerError
from .findings import FileResult
from .job_building import MODES, CheckOptions
from .lsp.settings import Settings
from .persist.files import FileCache
from .persist.store import ResultStore, default_folder
from .report import render
from .targets import TARGETS

# 3: no error, but a module's check did not finish (a timeout): not known to export, so CI must
# not pass it quietly; the codes that mean it are the registry's `undecided` ones.
EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE, EXIT_UNDECIDED = 0, 1, 2, 3
# The flags' defaults are the settings' (lsp/settings.py declares each once; no pygls there).
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
        default=DEFAULT.timeout_seconds,
        metavar="S",
        help=f"per module (default {DEFAULT.timeout_seconds:g})",
    )
    check.add_argument(
        "--memory-limit",
        type=int,
        default=DEFAULT.memory_limit_mb,
        metavar="MB",
        help="address-space cap per export, on top of the warm worker",
    )
    check.add_argument(
        "--meta-above",
        type=float,
        default=DEFAULT.meta_above_mb,
        metavar="MB",
        help="export models whose weights exceed MB with meta weights, allocating nothing (0: never)",
    )
    check.add_argument(
        "--device",
        choices=("fake", "real", "cpu"),
        default=DEFAULT.device,
        help="where tensors the code puts on a GPU go: fake tensors on that device (no GPU touched),"
        " the real device, or the CPU with real values (default %(default)s; docs/devices.md)",
    )
    check.add_argument(
        "--target",
        action="append",
        choices=TARGETS,
        default=list(DEFAULT.targets),
        help="also check that each clean export lowers to this target (repeatable): core-aten, onnx,"
        " aoti (compiles C++: slow); default: export only (docs/targets.md)",
    )
    check.add_argument(
        "--python",
        default=DEFAULT.python,
        metavar="EXE",
        help="interpreter with torch to run exports in (default: this one)",
    )
    check.add_argument(
        "--first-failure-only",
        action="store_true",
        help="stop at each module's first failure (no search for the others: faster)",
    )
    check.add_argument(
        "--no-cache",
        action="store_true",
        help="export everything again; by default an unchanged file (its text, the workspace files it"
        " imports, the interpreter and its packages, these options) is reported from the last run",
    )
    check.add_argument("-v", "--verbose", action="store_true", help="log the worker's stderr")
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


def python_files(paths: list[str]) -> list[Path]:
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files += sorted(
                p
                for p in path.rglob("*.py")
                if not any(
                    part.startswith(".") or part in ("__pycache__", "node_modules") for part in p.parts
                )
            )
        elif path.is_file():
            files.append(path)
        else:
            raise FileNotFoundError(f"no such file or folder: {raw}")
    return files


async def run_check(args: argparse.Namespace) -> tuple[list[FileResult], dict[str, str]]:
    # No spare child, and the warm-up before the first job: the CLI's jobs come all at once.
    limits = EngineOptions(python=args.python, timeout=args.timeout, memory_mb=args.memory_limit)
    engine = Engine(dataclasses.replace(limits, spares=False, warm_first=True))
    options = CheckOptions(
        mode=args.mode,
        roots=[os.getcwd()],
        all_failures=not args.first_failure_only,
        meta_above_mb=args.meta_above or None,
        device=args.device,
        targets=targets(args),
        on_demand=True,  # `--target aoti` was asked for: it runs (a C++ compile per module)
    )
    settings = dataclasses.replace(
        DEFAULT,
        mode=args.mode,
        python=args.python,
        timeout_seconds=args.timeout,
        memory_limit_mb=args.memory_limit,
        all_failures=not args.first_failure_only,
        meta_above_mb=args.meta_above,
        device=args.device,
        targets=targets(args),
    )
    cache = None
    if not args.no_cache:
        store = ResultStore(default_folder())
        cache = await asyncio.to_thread(FileCache, store, args.python, settings.results_key())
    try:
        # With the cache, the worker starts with the first file that needs an export (none when
        # every file is unchanged) and the diagnosis stack is imported only then; an interpreter
        # without torch is refused at once, with the worker's reason, as without the cache.
        if cache is None or not cache.env.torch:
            await engine.worker()
        from .covered import check_paths  # files with export calls first: they say what they cover

        if cache is None:
            from .check import check_file

            results = await check_paths(
                [str(f) for f in args.files], options, lambda p, o: check_file(engine, p, None, o)
            )
        else:
            results = await check_paths(
                [str(f) for f in args.files], options, lambda p, o: cache.check(engine, p, o)
            )
        info = engine.info
    finally:
        await engine.close()
    if cache is not None and cache.hits:
        print(
            f"exportlens: {cache.hits} of {len(args.files)} file(s) unchanged since the last check:"
            " their results come from the cache (--no-cache to export them again)",
            file=sys.stderr,
        )
    torch = info.get("torch") or (cache.env.torch if cache else None) or ""
    return results, {"torch": str(torch), "python": str(info.get("python") or args.python or sys.executable)}


def targets(args: argparse.Namespace) -> tuple[str, ...]:
    """`--target`s in the order given, `export` first: it is always run."""
    return tuple(dict.fromkeys(("export", *args.target)))


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
    if args.command == "serve":
        from .lsp.server import serve  # pygls is only imported when serving

        return serve(args)
    try:
        args.files = python_files(args.paths)
    except FileNotFoundError as exc:
        print(f"exportlens: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        results, versions = asyncio.run(run_check(args))
    except WorkerError as exc:
        print(
            f"exportlens: {exc}\nexportlens: pick an interpreter that has torch with --python, "
            "or `pip install torch` into this one.",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        sys.stdout.write(render(args.format, results, versions, cwd=Path.cwd()))
        sys.stdout.flush()
    except BrokenPipeError:  # `exportlens check . | head`: the reader has what it wanted
        # Python would report the broken pipe again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return exit_status(results)


def exit_status(results: list[FileResult]) -> int:
    found = [d for r in results for d in r.diagnostics]
    if any(d.severity == "error" for d in found):
        return EXIT_FINDINGS
    return EXIT_UNDECIDED if any(registered(d.code).undecided for d in found) else EXIT_CLEAN
