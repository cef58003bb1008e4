"""The command line's arguments, and the settings they set (the flags' defaults are the
settings', declared once in config/settings.py)."""

from __future__ import annotations

import argparse
from typing import Any

from . import __version__
from .check.jobs import MODES
from .config.settings import COMPILE_CHOICES, QUANTIZE, Settings
from .daemon_cli import add_daemon_parser
from .lowerings import LOWERINGS
from .spelling import code_argument

DEFAULT = Settings()
DESCRIPTION = "`exportlens check PATH…`: the engine, headless, for terminals and CI."


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="exportlens", description=DESCRIPTION)
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
