"""`python -m exportlens ARGS…` as on native Windows, as far as Linux can stand in for it: the
POSIX-only modules the CLI and the server must not need are missing, and platforms.py says
win32 (tests/cli/test_cli_windows.py, tests/lsp/test_windows_server.py)."""

from __future__ import annotations

import runpy
import sys

POSIX_ONLY = ("resource", "fcntl", "termios", "pwd", "grp")

for name in POSIX_ONLY:
    sys.modules[name] = None  # type: ignore[assignment]  # `import resource` now raises ImportError

import exportlens.platforms  # noqa: E402 - after the modules above are made missing

exportlens.platforms.PLATFORM = "win32"
sys.argv = ["exportlens", *sys.argv[1:]]
runpy.run_module("exportlens", run_name="__main__", alter_sys=True)
