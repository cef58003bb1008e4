"""Public model code through the `coreml` target, as it is (tiny configs, random init, nothing downloaded).

minGPT: karpathy/minGPT's `mingpt/model.py` at commit 3cf811e (June 2022, MIT), `CausalSelfAttention`,
`Block` and `GPT` as written there; only the config is a plain namespace (the file's `CfgNode` and its
named-config table come from `mingpt.utils`) and `_init_weights` is left out (random init either way).
Its embedding stem slices `self.pos_emb[:, :t, :]`: at `t == block_size` that slice takes the whole dim
and exports as `aten.alias`, which coremltools 9.0 has no translation for, so it is refused on that line;
a shorter sequence exports as a real slice, and then its `loss = None` output is refused (on the
module: Core ML has no output for a `None`).

nanoGPT (tests/realcode/nanogpt_model.py: karpathy/nanoGPT's `model.py`, MIT) embeds positions with
`torch.arange` and an `nn.Embedding`: behind a wrapper that returns its logits alone, it converts
clean at the full block size.
"""

from __future__ import annotations

from pathlib import Path

from exportlens.check import CheckOptions, check_file
from exportlens.engine import Engine
from exportlens.findings import FileResult
from tests.conftest import line_of, only
from tests.realcode.nanogpt_model import NANOGPT_MODEL

MINGPT = """
import math
from types import SimpleNamespace

import torch
import torch.nn as nn
from torch.nn import functional as F


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        # key, query, value projections for all heads
        self.key = nn.Linear(config.n_embd, config.n_embd)
        self.query = nn.Linear(config.n_embd, config.n_embd)
        self.value = nn.Linear(config.n_embd, config.n_embd)
        # regularization
        self.attn_drop = nn.Dropout(config.attn_pdrop)
        self.resid_drop = nn.Dropout(config.resid_pdrop)
        # output projection
        self.proj = nn.Linear(config.n_embd, config.n_embd)
        # causal mask to ensure that attention is only applied to the left in the input sequence
        self.register_buffer("mask", torch.tril(torch.ones(config.block_size, config.block_size))
                                     .view(1, 1, config.block_size, config.block_size))
        self.n_head = config.n_head

    def forward(self, x):
        B, T, C = x.size() # batch size, sequence length, embedding dimensionality (n_embd)

        k = self.key(x).view(B, T, self.n_head, C // self.n_head).transpose(1, 2) # (B, nh, T, hs)
        q = self.query(x).view(B, T, self.n_head, C // self.n_head).transpose(1, 2) # (B, nh, T, hs)
        v = self.value(x).view(B, T, self.n_head, C // self.n_head).transpose(1, 2) # (B, nh, T, hs)

        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.mask[:,:,:T,:T] == 0, float('-inf'))
        att = F.softmax(att, dim=-1)
        att = self.attn_drop(att)
        y = att @ v # (B, nh, T, T) x (B, nh, T, hs) -> (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C) # re-assemble all head outputs side by side

        # output projection
        y = self.resid_drop(self.proj(y))
        return y

class Block(nn.Module):
    \"\"\" an unassuming Transformer block \"\"\"

    def __init__(self, config):
        super().__init__()
        self.ln1 = nn.LayerNorm(config.n_embd)
        self.ln2 = nn.LayerNorm(config.n_embd)
        self.attn = CausalSelfAttention(config)
        self.mlp = nn.Sequential(
            nn.Linear(config.n_embd, 4 * config.n_embd),
            nn.GELU(),
            nn.Linear(4 * config.n_embd, config.n_embd),
            nn.Dropout(config.resid_pdrop),
        )

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        x = x + self.mlp(self.ln2(x))
        return x

class GPT(nn.Module):
    \"\"\"  the full GPT language model, with a context size of block_size \"\"\"

    def __init__(self, config):
        super().__init__()

        # input embedding stem
        self.tok_emb = nn.Embedding(config.vocab_size, config.n_embd)
        self.pos_emb = nn.Parameter(torch.zeros(1, config.block_size, config.n_embd))
        self.drop = nn.Dropout(config.embd_pdrop)
        # transformer
        self.blocks = nn.Sequential(*[Block(config) for _ in range(config.n_layer)])
        # decoder head
        self.ln_f = nn.LayerNorm(config.n_embd)
        self.head = nn.Linear(config.n_embd, config.vocab_size, bias=False)

        self.block_size = config.block_size

    def forward(self, idx, targets=None):
        b, t = idx.size()
        assert t <= self.block_size, f"Cannot forward, model block size is exhausted on {t} <= {self.block_size}"

        # forward the GPT model
        token_embeddings = self.tok_emb(idx) # each index maps to a (learnable) vector
        position_embeddings = self.pos_emb[:, :t, :] # each position maps to a (learnable) vector
        x = self.drop(token_embeddings + position_embeddings)
        x = self.blocks(x)
        x = self.ln_f(x)
        logits = self.head(x)

        # if we are given some desired targets also calculate the loss
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)

        return logits, loss


config = SimpleNamespace(n_layer=1, n_head=2, n_embd=16, vocab_size=50, block_size=8)
config.embd_pdrop = config.resid_pdrop = config.attn_pdrop = 0.1
torch.export.export(GPT(config).eval(), (torch.randint(0, 50, (1, T)),))
"""  # noqa: E501 - minGPT's lines as written

NANOGPT = (
    NANOGPT_MODEL
    + """
class Logits(nn.Module):
    def __init__(self, gpt):
        super().__init__()
        self.gpt = gpt

    def forward(self, idx):
        logits, _ = self.gpt(idx)
        return logits


config = GPTConfig(block_size=8, vocab_size=50, n_layer=1, n_head=2, n_embd=16, dropout=0.0)
torch.export.export(Logits(GPT(config)).eval(), (torch.randint(0, 50, (1, 8)),))
"""
)


async def _check(engine: Engine, path: str) -> FileResult:
    options = CheckOptions(roots=[str(Path(path).parent)], lowerings=("export", "coreml"))
    return await check_file(engine, path, None, options)


async def test_mingpt_at_its_full_block_size_is_refused_on_the_position_slice(engine: Engine, write) -> None:
    path = write("mingpt_model.py", MINGPT.replace("T)),))", "8)),))"))
    result = await _check(engine, path)
    refused = only(result, "coreml-unsupported-op")
    assert refused.range.start.line == line_of(path, "position_embeddings = self.pos_emb[:, :t, :]")
    assert refused.message.startswith(
        "Core ML: coremltools has no translation for `aten.alias.default` (NotImplementedError: Unsupported "
        "fx node alias, kind alias). A slice over the whole dim exports as `aten.alias`"
    ), refused.message
    assert "def alias(context, node): context.add(mb.identity(" in refused.message
    assert [d.code for d in result.diagnostics] == ["coreml-unsupported-op"]


async def test_mingpt_on_a_shorter_sequence_is_refused_for_its_none_loss(engine: Engine, write) -> None:
    """Past the slice, `return logits, loss` with `loss = None`: coremltools 9.0 looks that output up as
    a var named "" ("Torch var  not found in context"); said on the module, with what it means."""
    path = write("mingpt_model.py", MINGPT.replace("T)),))", "5)),))"))
    result = await _check(engine, path)
    refused = only(result, "coreml-conversion-error")
    assert refused.range.start.line == line_of(path, "class GPT(")
    assert refused.message == (
        "Core ML: the module returns `None` among its outputs (`return logits, loss` without targets), and "
        "Core ML has no output for it: export a module whose `forward` returns only tensors (a wrapper "
        "returning `logits`) (ValueError: Torch var  not found in context)."
    )
    assert [d.code for d in result.diagnostics] == ["coreml-conversion-error"]


async def test_nanogpt_converts_clean_at_its_full_block_size(engine: Engine, write) -> None:
    """nanoGPT's inference path: `loss = None` too, so the module exported is a wrapper returning the
    logits alone, as the finding above says to write."""
    path = write("nanogpt_model.py", NANOGPT)
    result = await _check(engine, path)
    assert result.diagnostics == [], [d.message for d in result.diagnostics]
    (logits,) = [m for m in result.modules if m.name == "Logits"]
    (lowering,) = logits.lowerings
    assert lowering["target"] == "coreml" and lowering["ok"] is True and lowering["facts"]["ops"] > 20
