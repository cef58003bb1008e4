"""Part dims derived from a parent's Dim (issue 13, item 3), through the real worker: a dim that
moves on a line with the parent's Dim (`seq + 1` after a prepended class token, `2 * batch` after
a concatenation) is checked with torch's derived Dim; one that only looks so after one narrowed
pass (`batch * seq` after a flatten) stays static."""

from __future__ import annotations

from pathlib import Path

from exportlens.check.jobs import CheckOptions, make_job
from exportlens.discovery import discovery_of
from exportlens.engine import Engine
from exportlens.reading import read_document
from tests.conftest import check

ENCODER = """
    import torch
    import torch.nn as nn


    class Mixer(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(16, 16)

        def forward(self, x):
            return x + self.proj(x).softmax(dim=1)


    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.cls = nn.Parameter(torch.zeros(1, 1, 16))
            self.mix = Mixer()

        def forward(self, x):
            x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1)
            return PASS


    if __name__ == "__main__":
        batch = torch.export.Dim("batch", min=2, max=32)
        seq = torch.export.Dim("seq", min=2, max=64)
        torch.export.export(Encoder(), (torch.randn(3, 16, 16),), dynamic_shapes=({0: batch, 1: seq},))
"""


async def record_of(engine: Engine, path: str) -> dict:
    doc = read_document(path)
    (encoder,) = [t for t in discovery_of(doc).subjects if t.name == "Encoder"]
    options = CheckOptions(roots=[str(Path(path).parent)])
    outcome = await engine.run(make_job(doc, encoder, False, options, parts_from=[path]))
    assert outcome.status == "exported", outcome.failure
    (record,) = outcome.raw["parts"]
    return record


async def test_a_prepended_token_makes_the_parts_dim_seq_plus_one(engine: Engine, write) -> None:
    path = write("vit_cls.py", ENCODER.replace("PASS", "self.mix(x)"))
    record = await record_of(engine, path)
    assert record["args"][0]["tensor"]["dims"] == ["batch", "seq+1", None]
    assert record["dims"]["seq+1"] == {
        "name": "seq+1",
        "hint": "derived",
        "size": 17,
        "min": 3,
        "max": 65,
        "root": "seq",
        "k": 1,
        "c": 1,
    }
    result = await check(engine, path)
    assert [f for f in result.diagnostics if f.severity == "error"] == []
    (mixer,) = [m for m in result.modules if m.name == "Mixer"]
    assert (mixer.status, mixer.inputs) == ("exported", "recorded")
    assert mixer.graph is not None
    assert [(d["input"], d["dim"], d["min"], d["max"]) for d in mixer.graph["dynamic"]] == [
        ("x", 0, 2, 32),
        ("x", 1, 3, 65),
    ]


async def test_a_concatenated_batch_is_twice_the_batch(engine: Engine, write) -> None:
    # a batch of 5: the third pass narrows it alone by 2 (one of 3 would go below 2: static)
    twice = ENCODER.replace("PASS", "self.mix(torch.cat([x, x], dim=0))").replace("randn(3,", "randn(5,")
    path = write("vit_twice.py", twice)
    record = await record_of(engine, path)
    assert record["args"][0]["tensor"]["dims"] == ["2*batch", "seq+1", None]
    result = await check(engine, path)
    assert [f for f in result.diagnostics if f.severity == "error"] == []
    (mixer,) = [m for m in result.modules if m.name == "Mixer"]
    assert mixer.graph is not None and mixer.status == "exported"
    assert [(d["dim"], d["min"], d["max"]) for d in mixer.graph["dynamic"]] == [(0, 4, 64), (1, 3, 65)]


async def test_a_flattened_batch_times_seq_stays_static(engine: Engine, write) -> None:
    # (batch * (seq + 1)) shrinks by a multiple of each Dim's narrowing in the second pass: only the
    # third (one Dim alone) shows it is on no line, so it is checked static, never as `k*seq+c`.
    path = write("vit_flat.py", ENCODER.replace("PASS", "self.mix(x.reshape(1, -1, 16))"))
    record = await record_of(engine, path)
    assert record["args"][0]["tensor"]["dims"] == [None, None, None]
    assert record["dims"] == {}
