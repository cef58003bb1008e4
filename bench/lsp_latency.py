"""Edit → published diagnostics latency through the real language server, next to a warm
in-process `torch.export`; hover latency from the cache; the server's RSS.

    PYTHONPATH=server python bench/lsp_latency.py [--edits 20] [--hovers 300] [--layers 4]

The models are run.py's (bench/models.py).  debounceMs is 0, so the figure is the server's
own overhead plus the worker's export.  Each model is edited twice over: with a 1 s pause
after each check (the user looks at the result; the worker is idle and keeps a warm spare
child) and back to back (the next edit the moment the last check ends: no idle time at all).
After each block of edits, once the worker is idle, a floor process kept alive (`measure.py
floor-serve`) exports the same model as many times: the warm export each latency is read
against comes from the same minutes (this machine's speed drifts between minutes).  The same
files are also checked through the engine directly (the server's floor), after the server.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))  # exportlens, from a checkout
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.lsp: the pytest-lsp session helpers

from lsprotocol import types
from tests.lsp.conftest import Session, start, stop

from exportlens.engine import Engine, EngineOptions
from measure import FloorServer, FloorTarget, median, percentile
from models import ModelSpec, mlp, transformer
from run import engine_job

BLOCK = 6  # edits between two rounds of the floor's exports (even: edit_latencies toggles an edit)
SETTLE_SPARE = 2.0  # s after a block before the floor's round: the worker's spare is forked and warm
PAUSES = (1.0, 0.0)  # seconds between one check's end and the next edit: a look, then none
# The worker's warm-up runs between the first jobs after opening (issue 18: the first squiggle
# comes sooner): edits in those seconds are the opening's (first_diagnostic.py), not measured.
SETTLE = 20.0


def models(layers: int) -> list[ModelSpec]:
    """run.py's models, non-strict, as files exporting themselves under `__main__`."""
    return [mlp(), transformer(layers)]


@dataclass
class ModelLatency:
    model: str
    label: str
    pause_s: float  # between the end of one check and the next edit
    edit_p50_ms: float  # didChange sent → its diagnostics published
    edit_p95_ms: float
    engine_ms: float  # median check_file through the engine directly: the server's floor
    floor_ms: float  # median warm in-process export, beside this row's edits (measure.py floor-serve)


@dataclass
class LspReport:
    edits: int
    torch: str
    python: str
    server_rss_mb: float
    torch_in_server: bool
    rows: list[ModelLatency] = field(default_factory=list)
    hover_ms: list[float] = field(default_factory=list)

    @property
    def hover_p50_ms(self) -> float:
        return percentile(self.hover_ms, 50)

    @property
    def hover_p99_ms(self) -> float:
        return percentile(self.hover_ms, 99)


async def wait_published(session: Session, uri: str, version: int) -> None:
    while not any(p.uri == uri and p.version == version for p in session.record.published):
        await asyncio.sleep(0.0005)


async def edit_latencies(
    session: Session, uri: str, source: str, spec: ModelSpec, edits: int, pause: float
) -> list[float]:
    """Append / remove ` * 1.0` at the end of the model's last `return`: each edit re-exports it."""
    lines = source.splitlines()
    line = max(i for i, s in enumerate(lines) if s.startswith("        return ") and "__main__" not in s)
    end = len(lines[line])
    latencies = []
    for n in range(edits):
        await asyncio.sleep(pause)
        started = time.perf_counter()
        if n % 2 == 0:
            version = session.edit(uri, line, end, end, " * 1.0")
        else:
            version = session.edit(uri, line, end, end + len(" * 1.0"), "")
        await wait_published(session, uri, version)
        latencies.append((time.perf_counter() - started) * 1000)
        diagnostics = await session.wait_checked(uri, version)
        assert diagnostics == [], f"{spec.key} does not check cleanly: {diagnostics}"
    return latencies


async def edits_beside_floor(
    session: Session,
    uri: str,
    source: str,
    spec: ModelSpec,
    edits: int,
    pause: float,
    floor: FloorServer,
    index: int,
) -> tuple[list[float], list[float]]:
    """`edits` edit latencies in blocks of BLOCK, each block followed by as many warm exports in
    the floor process once the worker is idle: the figure and its reference share the machine's
    minutes. Back to back, each block starts with two edits not counted (the first after the
    floor's round finds a warm spare, as no edit back to back does)."""
    latencies: list[float] = []
    floors: list[float] = []
    while len(latencies) < edits:
        if pause == 0.0:
            await edit_latencies(session, uri, source, spec, 2, 0.0)
        block = await edit_latencies(session, uri, source, spec, min(BLOCK, edits - len(latencies)), pause)
        latencies += block
        await asyncio.sleep(SETTLE_SPARE)
        floors += [s * 1000 for s in await floor.exports(index, len(block))]
    return latencies, floors


async def hover_latencies(
    session: Session, uri: str, source: str, spec: ModelSpec, hovers: int
) -> list[float]:
    """Hover on the exported class's name: answered from the cache of the last check."""
    line = next(i for i, s in enumerate(source.splitlines()) if s.startswith(f"class {spec.class_name}("))
    times = []
    for _ in range(hovers):
        started = time.perf_counter()
        await session.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=line, character=len("class ") + 1),
            )
        )
        times.append((time.perf_counter() - started) * 1000)
    return times


async def engine_ms(engine: Engine, path: Path, spec: ModelSpec, runs: int) -> float:
    """Median `check_file` of the file through the engine, after one warm-up check."""
    await engine_job(engine, path, spec.class_name, None)
    return median([(await engine_job(engine, path, spec.class_name, None))[0] * 1000 for _ in range(runs)])


async def measure_lsp(edits: int, hovers: int, engine: Engine | None = None, layers: int = 4) -> LspReport:
    """The server's edits, each block of them beside the floor process's warm exports; the engine
    after the server is stopped: never two measured at once.

    `engine` (for the direct checks) is left open; by default a fresh one, closed at the end.
    """
    specs = models(layers)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        paths = {spec.key: spec.write(root, strict=False) for spec in specs}
        targets = [FloorTarget(paths[spec.key], spec.class_name, spec.inputs, False) for spec in specs]
        latencies: dict[tuple[str, float], tuple[list[float], list[float]]] = {}
        hover_ms: list[float] = []
        async with FloorServer(targets) as floor:
            session = await start(root, {"debounceMs": 0, "timeoutSeconds": 120})
            try:
                opened = time.perf_counter()
                for index, spec in enumerate(specs):
                    source = paths[spec.key].read_text(encoding="utf-8")
                    await session.open(paths[spec.key].name, source)
                    uri = paths[spec.key].resolve().as_uri()
                    while time.perf_counter() - opened < SETTLE:  # discarded: the opening's edits
                        await edit_latencies(session, uri, source, spec, 2, 1.0)
                    for pause in PAUSES:
                        latencies[spec.key, pause] = await edits_beside_floor(
                            session, uri, source, spec, edits, pause, floor, index
                        )
                    hover_ms += await hover_latencies(session, uri, source, spec, hovers)
                status = await session.command("exportlens.status")
            finally:
                await stop(session)
        owned = engine is None
        engine = engine or Engine(EngineOptions(timeout=120.0))
        try:
            direct = {spec.key: await engine_ms(engine, paths[spec.key], spec, edits) for spec in specs}
        finally:
            if owned:
                await engine.close()
    report = LspReport(
        edits=edits,
        torch=str(status["torch"]),
        python=str(status["python"]),
        server_rss_mb=float(status["rssMb"]),
        torch_in_server=bool(status["torchImported"]),
        hover_ms=hover_ms,
    )
    for spec in specs:
        for pause in PAUSES:
            times, floors = latencies[spec.key, pause]
            p50, p95 = percentile(times, 50), percentile(times, 95)
            report.rows.append(
                ModelLatency(spec.key, spec.label, pause, p50, p95, direct[spec.key], median(floors))
            )
    return report


def table(report: LspReport) -> str:
    lines = [
        f"torch {report.torch} · python {report.python} · debounceMs=0 · {report.edits} edits per model",
        f"{'model':<12} {'pause':>6} {'edit→diag p50':>14} {'p95':>9} {'engine check_file':>18} "
        f"{'in-process export':>18}",
    ]
    for r in report.rows:
        lines.append(
            f"{r.model:<12} {r.pause_s:>4.1f} s {r.edit_p50_ms:>11.0f} ms {r.edit_p95_ms:>6.0f} ms "
            f"{r.engine_ms:>15.0f} ms {r.floor_ms:>15.0f} ms"
        )
    lines += [
        *dict.fromkeys(f"{r.model}: {r.label}" for r in report.rows),
        "pause: seconds between one check's end and the next edit (0: edits back to back)",
        f"hover (cache) p50 {report.hover_p50_ms:.1f} ms · p99 {report.hover_p99_ms:.1f} ms "
        f"over {len(report.hover_ms)} hovers",
        f"server RSS {report.server_rss_mb:.1f} MB · torch imported in the server: {report.torch_in_server}",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--hovers", type=int, default=300)
    parser.add_argument("--layers", type=int, default=4, help="the transformer's layers (run.py's default)")
    args = parser.parse_args()
    print(table(asyncio.run(measure_lsp(args.edits, args.hovers, layers=args.layers))))


if __name__ == "__main__":
    main()
