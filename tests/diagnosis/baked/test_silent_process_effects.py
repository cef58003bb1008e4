"""More of what non-strict export silently bakes in: process-level side effects and KV caches.

The cache is the shape of Meta's llama `model.py` (`Attention` keeps `self.cache_k` / `self.cache_v`
as plain tensors, written in place in forward) and the grid of YOLOv5's `Detect` (a tensor attribute
assigned in forward); both sit in a submodule of the exported model, as in the originals.
"""

from __future__ import annotations

from exportlens.engine import Engine
from tests.conftest import check, line_of

MODEL = """
    import os
    import sys
    import threading

    import torch
    import torch.nn as nn


    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.wk = nn.Linear(8, 8)
            self.wv = nn.Linear(8, 8)
            self.cache_k = torch.zeros(2, 16, 8)
            self.cache_v = torch.zeros(2, 16, 8)

        def forward(self, x, start_pos: int = 0):
            bsz, seqlen, _ = x.shape
            self.cache_k[:bsz, start_pos : start_pos + seqlen] = self.wk(x)
            self.cache_v[:bsz, start_pos : start_pos + seqlen] = self.wv(x)
            return self.cache_k[:bsz].sum() + self.cache_v[:bsz].sum()


    class Noisy(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = Attention()

        def forward(self, x):
            sys.stdout.write("exporting\\n")
            os.environ["SEEN"] = "1"
            torch.manual_seed(0)
            threading.Thread(target=print).start()
            with open(os.devnull, "w") as sink:
                sink.write("x")
            return self.attn(x)


    if __name__ == "__main__":
        torch.export.export(Noisy().eval(), (torch.randn(2, 4, 8),))
"""


async def test_process_effects_and_each_cache_are_warned_on_their_lines(engine: Engine, write) -> None:
    path = write("noisy.py", MODEL)
    result = await check(engine, path, mode="non-strict")
    assert [m.status for m in result.modules if m.name == "Noisy"] == ["exported"]
    got = sorted((d.range.start.line, d.code) for d in result.diagnostics)
    baked = "side-effect-baked"
    expected = [
        (line_of(path, "self.cache_k[:bsz, start_pos"), "tensor-attribute-not-buffer"),
        (line_of(path, "self.cache_v[:bsz, start_pos"), "tensor-attribute-not-buffer"),
        (line_of(path, "sys.stdout.write"), baked),
        (line_of(path, 'os.environ["SEEN"]'), baked),
        (line_of(path, "torch.manual_seed(0)"), baked),
        (line_of(path, "threading.Thread"), baked),
        (line_of(path, "open(os.devnull"), baked),
    ]
    assert got == sorted(expected), [(d.range.start.line, d.code, d.message[:80]) for d in result.diagnostics]
    cache = next(d for d in result.diagnostics if "cache_k" in d.message)
    assert 'register_buffer("cache_k", ..., persistent=False)' in cache.message
    assert all(d.severity == "warning" for d in result.diagnostics)
