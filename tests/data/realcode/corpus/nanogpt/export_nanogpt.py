"""Export nanoGPT's GPT: a small config, random token ids, static then dynamic sequence length."""

import torch
from model import GPT, GPTConfig
from torch.export import Dim

if __name__ == "__main__":
    config = GPTConfig(block_size=64, vocab_size=96, n_layer=2, n_head=2, n_embd=32, dropout=0.0)
    model = GPT(config).eval()
    idx = torch.randint(0, config.vocab_size, (2, 16))
    torch.export.export(model, (idx,))
    # A first try at a dynamic length: an unbounded Dim.
    torch.export.export(model, (idx,), dynamic_shapes={"idx": {0: Dim("batch"), 1: Dim("seq")}})
    # With the bound the model has.
    seq = Dim("seq", max=config.block_size)
    torch.export.export(model, (idx,), dynamic_shapes={"idx": {0: Dim("batch"), 1: seq}})
