"""Results kept between sessions (persist/): reopening, and the CLI on an unchanged tree.

    PYTHONPATH=server python bench/reopen.py [--repeat 3]

- CLI: `exportlens check examples/` with an empty results store (it exports every module), then
  on the unchanged tree (every file from the store: no worker, no export), then `--no-cache`.
- Editor: a fresh server opens a failing file (the MLP with a data-dependent branch, bench
  models) and publishes its diagnostics; the server is shut down; a second fresh server, the
  next day as it were, opens the same unchanged file: the time to its first diagnostics
  (restored, marked cached) and to the re-verified ones.
Each in its own cache folder under a temp dir; nothing of the user's store is read or written.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT))  # tests.lsp: the pytest-lsp session helpers

from tests.lsp.conftest import Session, start, stop  # noqa: E402

from measure import median  # noqa: E402
from models import mlp  # noqa: E402

GUARD = "        if x.sum() > 0:\n            x = x * 2\n"
RETURN = "        return self.layers(x)"


def cli_seconds(cache: Path, *flags: str) -> float:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "server"), EXPORTLENS_CACHE_DIR=str(cache))
    started = time.perf_counter()
    done = subprocess.run(
        # --no-daemon: each run starts its worker, as these figures always measured (daemon_cli.py
        # measures the daemon)
        [sys.executable, "-m", "exportlens", "check", "examples/", "--no-daemon", *flags],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 1, done.stderr  # the examples have findings
    return time.perf_counter() - started


async def open_and_time(root: Path, name: str, text: str) -> tuple[float, float, bool]:
    """(seconds to the first published diagnostics, to the check's end, first were cached)."""
    session: Session = await start(root, {"debounceMs": 0, "timeoutSeconds": 120})
    try:
        uri = (root / name).resolve().as_uri()
        started = time.perf_counter()
        checked = asyncio.create_task(session.open_uri(uri, text))
        while not any(p.uri == uri and p.diagnostics for p in session.record.published):
            await asyncio.sleep(0.001)
        first = time.perf_counter() - started
        cached = any((d.data or {}).get("cached") for d in session.record.published[0].diagnostics)
        await checked
        return first, time.perf_counter() - started, cached
    finally:
        await stop(session)


async def editor(repeat: int) -> list[tuple[float, float, float, float]]:
    rows = []
    spec = mlp()
    plain = spec.source(strict=False)
    text = plain.replace(RETURN, GUARD + RETURN)
    assert text != plain, "the bench MLP changed: put the guard elsewhere"
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["EXPORTLENS_CACHE_DIR"] = str(Path(tmp) / "cache")
            root = Path(tmp) / "ws"
            root.mkdir()
            (root / "model.py").write_text(text)
            cold_first, cold_end, was_cached = await open_and_time(root, "model.py", text)
            assert not was_cached
            warm_first, warm_end, was_cached = await open_and_time(root, "model.py", text)
            assert was_cached, "the reopened file's first diagnostics were not the stored ones"
            rows.append((cold_first, cold_end, warm_first, warm_end))
    return rows


@dataclass
class ReopenReport:
    """Medians, seconds."""

    cli_empty: float  # exportlens check examples/, nothing stored
    cli_unchanged: float  # the same, every file from the store
    cli_no_cache: float
    open_first: float  # editor: a fresh server opens the file, nothing stored
    reopen_first: float  # the next fresh server: the stored diagnostics
    reopen_verified: float  # and the check that re-verifies them


async def measure_reopen(repeat: int) -> ReopenReport:
    cold, warm, forced = [], [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            cache = Path(tmp) / "cache"
            cold.append(cli_seconds(cache))
            warm.append(cli_seconds(cache))
            forced.append(cli_seconds(cache, "--no-cache"))
    saved = os.environ.get("EXPORTLENS_CACHE_DIR")
    try:
        rows = await editor(repeat)
    finally:
        os.environ.pop("EXPORTLENS_CACHE_DIR", None)
        if saved is not None:
            os.environ["EXPORTLENS_CACHE_DIR"] = saved
    first, reopen, verified = (median([r[i] for r in rows]) for i in (0, 2, 3))
    return ReopenReport(median(cold), median(warm), median(forced), first, reopen, verified)


def table(r: ReopenReport) -> str:
    return "\n".join(
        [
            "measurement                                          median s",
            f"CLI examples/, empty store                           {r.cli_empty:8.2f}",
            f"CLI examples/, unchanged (from the store)            {r.cli_unchanged:8.2f}",
            f"CLI examples/, --no-cache                            {r.cli_no_cache:8.2f}",
            f"editor open, first diagnostics (nothing stored)      {r.open_first:8.2f}",
            f"editor reopen, first diagnostics (stored, marked)    {r.reopen_first:8.2f}",
            f"editor reopen, re-verified                           {r.reopen_verified:8.2f}",
            "editor: a fresh server each open (didOpen → published), the MLP with a data-dependent branch",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    report = asyncio.run(measure_reopen(args.repeat))
    print(f"load average: {os.getloadavg()[0]:.2f}")
    print(table(report))


if __name__ == "__main__":
    main()
