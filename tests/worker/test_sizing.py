"""Large models export with meta weights: same graph and findings, no allocation."""

from __future__ import annotations

from pathlib import Path

from exportlens.check import CheckOptions, check_file
from exportlens.engine import Engine
from tests.conftest import line_of

BIG = """
import torch

class Wide(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(4096, 512)
        self.proj = torch.nn.Linear(512, 512)

    def forward(self, ids):
        h = self.proj(self.embed(ids))
        if h.mean() > 0:
            return h.relu()
        return h

    def example_inputs(self):
        return (torch.randint(0, 4096, (2, 16)),)

class WideClean(Wide):
    def forward(self, ids):
        positions = torch.arange(ids.shape[1])
        return self.proj(self.embed(ids) + self.embed(positions)[None])
"""


async def run(engine: Engine, path: str, meta_above_mb: float | None):  # type: ignore[no-untyped-def]
    options = CheckOptions(roots=[str(Path(path).parent)], meta_above_mb=meta_above_mb)
    return await check_file(engine, path, None, options)


async def test_meta_build_matches_the_real_one(engine: Engine, write) -> None:
    path = write("wide.py", BIG)
    real = await run(engine, path, None)
    meta = await run(engine, path, 1.0)  # ~9 MB of weights > 1 MB: meta
    assert [(m.name, m.status) for m in meta.modules] == [(m.name, m.status) for m in real.modules]
    # the same findings, and the clean export's note that it ran on meta weights
    noted = [d for d in meta.diagnostics if d.code == "meta-weights"]
    assert [d.module for d in noted] == ["WideClean"], noted
    assert [(d.code, d.range, d.severity) for d in meta.diagnostics if d not in noted] == [
        (d.code, d.range, d.severity) for d in real.diagnostics
    ]
    real_clean = next(m for m in real.modules if m.name == "WideClean")
    meta_clean = next(m for m in meta.modules if m.name == "WideClean")
    assert real_clean.graph and meta_clean.graph
    weights = {"meta": True, "bytes": (4096 * 512 + 512 * 512 + 512) * 4, "code_meta": False}
    assert meta_clean.graph["weights"] == weights
    assert real_clean.graph["weights"]["meta"] is False
    assert meta_clean.graph["ops"] == real_clean.graph["ops"]
    assert meta_clean.graph["inputs"] == real_clean.graph["inputs"]


# Wide with a second data-dependent branch after the first.
TWO_BRANCHES = BIG.split("class WideClean")[0].replace(
    "            return h.relu()\n        return h\n",
    "            h = h.relu()\n        if h.std() > 1:\n            h = h / 2\n        return h\n",
)


async def test_meta_weights_say_that_later_failures_were_not_searched(engine: Engine, write) -> None:
    path = write("branchy.py", TWO_BRANCHES)
    real = await run(engine, path, None)
    meta = await run(engine, path, 1.0)
    first, second = line_of(path, "if h.mean() > 0"), line_of(path, "if h.std() > 1")
    assert [(d.code, d.range.start.line) for d in real.diagnostics] == [
        ("data-dependent-branch", first),
        ("data-dependent-branch", second),
    ]
    (only,) = meta.diagnostics  # a retrace on meta values could not get past the first
    assert (only.code, only.range.start.line) == ("data-dependent-branch", first)
    assert "not looked for" in only.message and "metaAboveMb" in only.message
    assert "not looked for" not in real.diagnostics[0].message
    assert "more_failures" not in meta.modules[0].timings  # the useless retrace did not run
