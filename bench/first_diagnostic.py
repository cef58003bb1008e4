"""Time to the first diagnostic after opening a failing file, through a fresh language server.

    PYTHONPATH=server python bench/first_diagnostic.py [--repeat 3]

For the MLP and the 4-layer transformer of the benchmark (models.py), each with a
data-dependent branch in `forward` (the squiggle): a fresh server (its own process, a fresh
worker, an empty results store) is started as the editor starts it, the file opened, and the
time from the server's start and from didOpen to the first published diagnostics is taken.
The editor's own figure (activation → squiggle in code-server, editor_first_diagnostic.ts,
built by `make bench`) is run by `in_editor` on the same files.
"""

from __future__ import annotations

import argparse
import asyncio
import json
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

from tests.lsp.conftest import start, stop  # noqa: E402

from measure import median  # noqa: E402
from models import ModelSpec, mlp, transformer  # noqa: E402

GUARD = "        if x.sum() > 0:\n            x = x * 2\n"
RETURNS = {"mlp": "        return self.layers(x)", "transformer": "        return self.head(self.norm(x))"}


@dataclass
class FirstDiagnostic:
    model: str
    label: str
    from_start: float  # s, server process started -> first diagnostics published
    from_open: float  # s, didOpen -> first diagnostics published
    codes: list[str]


def failing(spec: ModelSpec) -> str:
    """The model's file with a data-dependent branch before its last return."""
    plain = spec.source(strict=False)
    anchor = RETURNS[spec.key]
    text = plain.replace(anchor, GUARD + anchor)
    assert text != plain, f"the bench {spec.key} changed: put the guard elsewhere"
    return text


EARLY = os.environ.get("EXPORTLENS_BENCH_EARLY_WORKER", "1") != "0"  # 0: the worker after didOpen, as before


async def once(spec: ModelSpec) -> FirstDiagnostic:
    text = failing(spec)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["EXPORTLENS_CACHE_DIR"] = str(Path(tmp) / "cache")  # nothing stored yet
        root = Path(tmp) / "ws"
        root.mkdir()
        (root / "model.py").write_text(text)
        started = time.perf_counter()
        # as the extension launches it in a trusted workspace: the worker starts before the server's imports
        session = await start(root, {"debounceMs": 0, "timeoutSeconds": 120}, start_worker=EARLY)
        try:
            uri = (root / "model.py").resolve().as_uri()
            opened = time.perf_counter()
            checked = asyncio.create_task(session.open_uri(uri, text))
            while not any(p.uri == uri and p.diagnostics for p in session.record.published):
                await asyncio.sleep(0.001)
            now = time.perf_counter()
            first = next(p for p in session.record.published if p.uri == uri and p.diagnostics)
            await checked
        finally:
            await stop(session)
    codes = sorted(str(d.code) for d in first.diagnostics)
    return FirstDiagnostic(spec.key, spec.label, now - started, now - opened, codes)


async def measure_first(repeat: int, layers: int = 4) -> list[FirstDiagnostic]:
    """The median run of `repeat` per model (by time from didOpen)."""
    rows = []
    for spec in (mlp(), transformer(layers)):
        runs = [await once(spec) for _ in range(repeat)]
        runs.sort(key=lambda r: r.from_open)
        best = runs[len(runs) // 2]
        best.from_open = median([r.from_open for r in runs])
        best.from_start = median([r.from_start for r in runs])
        rows.append(best)
    return rows


EDITOR_BENCH = ROOT / "dist" / "test" / "runner" / "editor_first_diagnostic.js"


def in_editor(opens: int, layers: int = 4) -> dict[str, float]:
    """Activation → first squiggle in code-server, per model: the median of `opens` runs."""
    if not EDITOR_BENCH.exists():
        raise SystemExit(f"{EDITOR_BENCH} is missing: `make bench` builds it (or bench/all.py --no-editor)")
    specs = [mlp(), transformer(layers)]
    with tempfile.TemporaryDirectory() as tmp:
        names = []
        for spec in specs:
            names.append(f"{spec.key}_branch.py")
            (Path(tmp) / names[-1]).write_text(failing(spec), encoding="utf-8")
        seconds: dict[str, list[float]] = {spec.key: [] for spec in specs}
        for _ in range(opens):
            done = subprocess.run(
                ["node", str(EDITOR_BENCH), tmp, *names],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=1800,
            )
            if done.returncode != 0:
                raise RuntimeError(f"editor_first_diagnostic failed:\n{done.stdout}\n{done.stderr}")
            for line in done.stdout.splitlines():
                if line.startswith("{"):
                    row = json.loads(line)
                    seconds[row["file"].split("_branch")[0]].append(row["activation_to_squiggle_s"])
    return {key: median(values) for key, values in seconds.items()}


def table(rows: list[FirstDiagnostic]) -> str:
    lines = ["model         server start → first  didOpen → first  first codes"]
    for r in rows:
        lines.append(f"{r.model:<12}  {r.from_start:>18.2f} s  {r.from_open:>13.2f} s  {', '.join(r.codes)}")
    lines += [f"{r.model}: {r.label}" for r in rows]
    lines.append("fresh server, worker and results store each run; medians")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--editor", action="store_true", help="also in code-server (make bench builds it)")
    args = parser.parse_args()
    load = os.getloadavg()
    rows = asyncio.run(measure_first(args.repeat))
    print(table(rows))
    if args.editor:
        for model, seconds in in_editor(args.repeat).items():
            print(f"{model:<12}  real editor, activation → squiggle {seconds:.2f} s")
    print(f"load average: {load[0]:.2f} at the start, {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
