"""Submodules are checked as parts of the module that has real inputs; guesses are never errors.

The shape of the case is nanoGPT's (`Block` holds `CausalSelfAttention`, whose forward unpacks
`B, T, C = x.size()`): checked alone on inputs guessed from its first `Linear` (a 2-D tensor),
the attention "fails" in a way the real model never does.
"""

from __future__ import annotations

from exportlens.engine import Engine
from tests.conftest import check, line_of

BLOCK = """
    import torch
    import torch.nn as nn


    class SelfAttention(nn.Module):
        def __init__(self, n_embd=16, n_head=2):
            super().__init__()
            self.c_attn = nn.Linear(n_embd, 3 * n_embd)
            self.n_head = n_head

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(C, dim=2)
            q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
            return y.transpose(1, 2).contiguous().view(B, T, C)


    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln = nn.LayerNorm(16)
            self.attn = SelfAttention()

        def forward(self, x):
            return x + self.attn(self.ln(x))


    class Unused(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(16, 16)

        def forward(self, x):
            B, T, C = x.shape
            return self.proj(x).view(B, T, C)


    if __name__ == "__main__":
        torch.export.export(Block(), (torch.randn(2, 5, 16),))
"""


async def test_a_part_is_checked_on_its_real_inputs_and_a_guess_gives_no_error(engine: Engine, write) -> None:
    path = write("gpt_block.py", BLOCK)
    result = await check(engine, path)
    assert [f for f in result.diagnostics if f.severity == "error"] == []
    by_name = {m.name: m for m in result.modules}
    assert by_name["Block"].status == "exported"
    # checked alone with what Block gives it (a 3-D tensor: it gets through its `view`s), not a guess
    attention = by_name["SelfAttention"]
    assert (attention.status, attention.inputs) == ("exported", "recorded")
    assert attention.graph is not None
    ops = attention.graph["lines"][path][str(line_of(path, "q = q.view(B, T,") + 1)]
    assert "aten.view.default" in ops
    assert not any(f.module == "SelfAttention" for f in result.diagnostics)
    # Unused is checked on a guess (a 2-D tensor): that it fails there is information, not an error
    (guess,) = [f for f in result.diagnostics if f.module == "Unused"]
    assert guess.code == "guessed-inputs-failed" and guess.severity == "information"
    assert guess.range.start.line == line_of(path, "B, T, C = x.shape")
    assert "example_inputs" in guess.message and "torch.randn(2, 16)" in guess.message


async def test_a_failure_inside_a_part_is_found_through_its_parent(engine: Engine, write) -> None:
    broken = BLOCK.replace(
        "            B, T, C = x.size()\n",
        "            B, T, C = x.size()\n            if x.sum() > 0:\n                x = x * 2\n",
    )
    path = write("gpt_block_branch.py", broken)
    result = await check(engine, path)
    errors = [f for f in result.diagnostics if f.severity == "error"]
    assert [(f.code, f.module, f.range.start.line) for f in errors] == [
        ("data-dependent-branch", "Block", line_of(path, "if x.sum() > 0:"))
    ]
    # the part's own check (on what Block gives it) fails there too: said once, by Block
    assert {m.name: m.status for m in result.modules}["SelfAttention"] == "failed"
