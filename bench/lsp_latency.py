"""Edit → published diagnostics latency through the real language server, next to a warm
in-process `torch.export`; hover latency from the cache; the server's RSS.

    PYTHONPATH=server python bench/lsp_latency.py [--edits 20] [--hovers 300]

debounceMs is 0, so the figure is the server's own overhead plus the worker's export.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.lsp: the pytest-lsp session helpers

from lsprotocol import types
from tests.lsp.conftest import Session, start, stop

MODELS = {
    "MLP": """
        import torch


        class MLP(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1 = torch.nn.Linear(64, 128)
                self.fc2 = torch.nn.Linear(128, 10)

            def example_inputs(self):
                return (torch.randn(8, 64),)

            def forward(self, x):
                h = torch.relu(self.fc1(x))
                return self.fc2(h) * 1.0
    """,
    "transformer": """
        import torch


        class Tiny(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = torch.nn.Embedding(100, 32)
                self.layer = torch.nn.TransformerEncoderLayer(32, 4, 64, batch_first=True)
                self.head = torch.nn.Linear(32, 100)

            def example_inputs(self):
                return (torch.randint(0, 100, (2, 8)),)

            def forward(self, tokens):
                h = self.layer(self.embed(tokens))
                return self.head(h) * 1.0
    """,
}


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def in_process_ms(source: str, runs: int) -> float:
    """Median warm `torch.export.export` of the same module in this process."""
    import torch  # the bench process, not the server

    namespace: dict[str, Any] = {}
    exec(compile(textwrap.dedent(source), "<bench>", "exec"), namespace)
    cls = next(
        v
        for v in namespace.values()
        if isinstance(v, type) and issubclass(v, torch.nn.Module) and v is not torch.nn.Module
    )
    module = cls()
    inputs = module.example_inputs()
    torch.export.export(module, inputs)  # warm-up
    times = []
    for _ in range(runs):
        start_time = time.perf_counter()
        torch.export.export(module, inputs)
        times.append((time.perf_counter() - start_time) * 1000)
    return statistics.median(times)


async def engine_ms(tmp: Path, name: str, source: str, runs: int) -> float:
    """Median `check_file` through the engine directly (its own warm worker): the server's floor."""
    from exportlens.check import CheckOptions, check_file
    from exportlens.engine import Engine, EngineOptions

    path = tmp / f"direct_{name}.py"
    path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
    engine = Engine(EngineOptions(timeout=60.0))
    options = CheckOptions(roots=[str(tmp)])
    try:
        await check_file(engine, str(path), None, options)  # warm-up
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            await check_file(engine, str(path), None, options)
            times.append((time.perf_counter() - started) * 1000)
    finally:
        await engine.close()
    return statistics.median(times)


async def wait_published(session: Session, uri: str, version: int) -> None:
    while not any(p.uri == uri and p.version == version for p in session.record.published):
        await asyncio.sleep(0.0005)


async def edit_latencies(session: Session, name: str, source: str, edits: int) -> tuple[str, list[float]]:
    await session.open(f"{name}.py", source)
    uri = (session.root / f"{name}.py").resolve().as_uri()
    text = textwrap.dedent(source).lstrip("\n")
    line = next(i for i, s in enumerate(text.splitlines()) if s.rstrip().endswith("* 1.0"))
    column = text.splitlines()[line].rindex("1.0")
    latencies = []
    for n in range(edits):
        value = "2.0" if n % 2 == 0 else "1.0"
        started = time.perf_counter()
        version = session.edit(uri, line, column, column + 3, value)
        await wait_published(session, uri, version)
        latencies.append((time.perf_counter() - started) * 1000)
        await session.wait_checked(uri, version)
    return uri, latencies


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        session = await start(Path(tmp).resolve(), {"debounceMs": 0, "timeoutSeconds": 60})
        try:
            rows = []
            hover_times: list[float] = []
            for name, source in MODELS.items():
                uri, latencies = await edit_latencies(session, name, source, args.edits)
                direct = await engine_ms(Path(tmp), name, source, args.edits)
                rows.append(
                    (name, pct(latencies, 50), pct(latencies, 95), direct, in_process_ms(source, args.edits))
                )
                class_line = next(
                    i
                    for i, s in enumerate(textwrap.dedent(source).lstrip("\n").splitlines())
                    if s.startswith("class ")
                )
                for _ in range(args.hovers):
                    started = time.perf_counter()
                    await session.client.text_document_hover_async(
                        types.HoverParams(
                            text_document=types.TextDocumentIdentifier(uri=uri),
                            position=types.Position(line=class_line, character=7),
                        )
                    )
                    hover_times.append((time.perf_counter() - started) * 1000)
            status = await session.command("exportlens.status")
        finally:
            await stop(session)
    print(
        f"torch {status['torch']} · python {status['python']} · debounceMs=0 · {args.edits} edits per model"
    )
    print(
        f"{'model':<12} {'edit→diag p50':>14} {'p95':>9} {'engine check_file':>18} {'in-process export':>18}"
    )
    for name, p50, p95, direct, local in rows:
        print(f"{name:<12} {p50:>11.0f} ms {p95:>6.0f} ms {direct:>15.0f} ms {local:>15.0f} ms")
    print(
        f"hover (cache) p50 {pct(hover_times, 50):.1f} ms · p99 {pct(hover_times, 99):.1f} ms "
        f"over {len(hover_times)} hovers"
    )
    print(f"server RSS {status['rssMb']:.1f} MB · torch imported in the server: {status['torchImported']}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--hovers", type=int, default=300)
    asyncio.run(main(parser.parse_args()))
