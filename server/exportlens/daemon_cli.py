"""`exportlens daemon status|stop`: the user's worker daemons, seen and stopped (docs/daemon.md)."""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .engine.daemon_paths import runtime_folder
from .engine.daemon_status import DaemonStatus, memory_bytes, running_daemons
from .engine.daemon_stop import stop_daemons
from .persist.fingerprint import environment


def add_daemon_parser(commands: Any) -> None:
    daemon = commands.add_parser("daemon", help="show or stop the worker daemons (docs/daemon.md)")
    actions = daemon.add_subparsers(dest="action", required=True)
    status = actions.add_parser("status", help="each daemon: pid, interpreter, torch, idle time, memory")
    status.add_argument("--format", choices=("text", "json"), default="text")
    stop = actions.add_parser("stop", help="stop the daemons (a check starts one again when needed)")
    for action in (status, stop):
        action.add_argument(
            "--python", metavar="PY", help="only the daemons of this interpreter's environment (default: all)"
        )
        action.add_argument("-v", "--verbose", action="store_true")


def run_daemon_command(args: argparse.Namespace) -> int:
    folder = runtime_folder()
    if folder.exists() and not _ours(folder):
        print(f"exportlens: {folder} is not a private folder of this user's; nothing read", file=sys.stderr)
        return 2
    daemons = running_daemons(folder)
    if args.python:
        prefix = environment(args.python).prefix
        daemons = [d for d in daemons if prefix and d.prefix == prefix]
    if args.action == "stop":
        stopped = stop_daemons(folder, keys={d.key for d in daemons}) if daemons else []
        print(_stopped(stopped))
        return 0
    if args.format == "json":
        print(json.dumps([_record(d) for d in daemons], indent=2))
    else:
        print(_status_text(daemons, folder))
    return 0


def _ours(folder: Path) -> bool:
    info = os.lstat(folder)
    return (
        stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not stat.S_IMODE(info.st_mode) & 0o077
    )


def _record(daemon: DaemonStatus) -> dict[str, Any]:
    return {
        **asdict(daemon),
        "idle_seconds": round(daemon.idle_seconds(), 1),
        "memory_bytes": memory_bytes(daemon.pid),
    }


def _status_text(daemons: list[DaemonStatus], folder: Path) -> str:
    if not daemons:
        return f"no worker daemon runs (runtime folder {folder})"
    lines = [f"{len(daemons)} worker daemon{'s' if len(daemons) > 1 else ''} (runtime folder {folder}):"]
    for daemon in daemons:
        memory = memory_bytes(daemon.pid)
        said = [
            f"pid {daemon.pid}",
            f"environment {daemon.prefix or '?'} (python {daemon.python})",
            f"torch {daemon.torch or 'starting'}",
            f"idle {_duration(daemon.idle_seconds())}",
            f"memory {memory / 2**20:.0f} MB" if memory is not None else "memory unknown",
            f"{daemon.clients} client{'s' if daemon.clients != 1 else ''} served",
        ]
        if daemon.retiring:
            said.append(f"retiring: {daemon.retiring}")
        lines.append("  " + ", ".join(said))
    return "\n".join(lines)


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"


def _stopped(pids: list[int]) -> str:
    if not pids:
        return "no worker daemon runs: nothing to stop"
    return (
        f"stopped {len(pids)} worker daemon{'s' if len(pids) > 1 else ''} (pid {', '.join(map(str, pids))})"
    )
