"""What checking parts with the inputs they really get costs an edit (issue 13 item 1, review 5 item 2).

    PYTHONPATH=server python bench/parts_cost.py [--jobs 5]

nanoGPT's corpus model.py as it is (tests/data/realcode/corpus/nanogpt), exported under
`__main__` with a small config, static and with Dims (batch, seq). Per variant, medians of:
- the parent's job alone, without recording (no part files named) and with it (the eager pass
  under the hooks, plus the narrowed pass with Dims): the child's CPU seconds and the wall clock;
- a whole check as the server runs it: time to the parent's diagnostics (check/run.py reports the
  parent before its parts' jobs run), time to the end (the parts checked alone), and the parts'
  jobs' CPU seconds summed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

from exportlens.discovery import discovery_of
from exportlens.reading import read_document

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))  # exportlens, from a checkout

from exportlens.check import CheckOptions, check_document  # noqa: E402
from exportlens.check.jobs import make_job  # noqa: E402
from exportlens.document import Document  # noqa: E402
from exportlens.engine import Engine, EngineOptions  # noqa: E402
from exportlens.findings import Finding, ModuleResult  # noqa: E402
from measure import median  # noqa: E402

MODEL = ROOT / "tests" / "data" / "realcode" / "corpus" / "nanogpt" / "model.py"
MAIN = """

if __name__ == '__main__':
    config = GPTConfig(block_size=64, vocab_size=96, n_layer=2, n_head=2, n_embd=32, dropout=0.0)
    model = GPT(config).eval()
    idx = torch.randint(0, config.vocab_size, (3, 16))
    {export}
"""
VARIANTS = {
    "static": "torch.export.export(model, (idx,))",
    "dims": "torch.export.export(model, (idx,), dynamic_shapes={'idx': {0: torch.export.Dim('batch'), "
    "1: torch.export.Dim('seq', max=config.block_size)}})",
}


async def parent_job(engine: Engine, doc: Document, record: bool) -> tuple[float, float]:
    """(child CPU s, wall s) of GPT's job, recording its parts or not."""
    (gpt,) = [t for t in discovery_of(doc).subjects if t.name == "GPT"]
    options = CheckOptions(roots=[str(Path(doc.path).parent)])
    started = time.perf_counter()
    outcome = await engine.run(make_job(doc, gpt, None, options, [doc.path] if record else []))
    wall = time.perf_counter() - started
    assert outcome.status == "exported", outcome.failure
    assert ("parts" in outcome.raw) == record
    return outcome.timings["cpu"], wall


async def whole_check(engine: Engine, doc: Document) -> tuple[float, float, float]:
    """(s to GPT's diagnostics, s to the end, the parts' child CPU s summed)."""
    options = CheckOptions(roots=[str(Path(doc.path).parent)])
    started = time.perf_counter()
    first: list[float] = []

    def early(result: ModuleResult, findings: list[Finding]) -> None:
        if result.name == "GPT" and not first:
            first.append(time.perf_counter() - started)

    result = await check_document(engine, doc, options, early=early)
    total = time.perf_counter() - started
    parts = [m for m in result.modules if m.inputs == "recorded"]
    assert parts and all(m.status == "exported" for m in parts), [(m.name, m.status) for m in parts]
    return first[0], total, sum(m.timings.get("cpu", 0.0) for m in parts)


async def main(jobs: int) -> None:
    engine = Engine(EngineOptions(timeout=120.0))
    await engine.worker()
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for name, export in VARIANTS.items():
                path = Path(tmp, f"nanogpt_{name}.py")
                path.write_text(
                    MODEL.read_text(encoding="utf-8") + MAIN.format(export=export), encoding="utf-8"
                )
                doc = read_document(str(path))
                await whole_check(engine, doc)  # warm: the caller's imports, the worker's caches
                plain = [await parent_job(engine, doc, False) for _ in range(jobs)]
                recorded = [await parent_job(engine, doc, True) for _ in range(jobs)]
                checks = [await whole_check(engine, doc) for _ in range(jobs)]
                rows.append((name, plain, recorded, checks))
    finally:
        await engine.close()
    print(f"nanoGPT corpus model.py, GPT exported under __main__; medians of {jobs} runs")
    head = f"{'variant':8} {'parent CPU s':>24} {'parent wall s':>24}"
    print(head + f" {'to GPT diag s':>14} {'to end s':>9} {'parts CPU s':>12}")
    for name, plain, recorded, checks in rows:
        cpu0, cpu1 = median([c for c, _ in plain]), median([c for c, _ in recorded])
        wall0, wall1 = median([w for _, w in plain]), median([w for _, w in recorded])
        first, total, parts = (median([c[i] for c in checks]) for i in range(3))
        cpu = f"{cpu0:6.2f} -> {cpu1:6.2f} (x{cpu1 / cpu0:4.2f})"
        wall = f"{wall0:6.2f} -> {wall1:6.2f} (x{wall1 / wall0:4.2f})"
        print(f"{name:8} {cpu} {wall} {first:14.2f} {total:9.2f} {parts:12.2f}")
    print("parent: without recording -> with it (the eager pass, plus the narrowed pass with Dims)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--jobs", type=int, default=5)
    asyncio.run(main(parser.parse_args().jobs))
