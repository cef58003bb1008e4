"""Export minGPT (a package: mingpt/model.py imports mingpt.utils) from a separate script."""

import torch
from mingpt.model import GPT
from torch.export import Dim

if __name__ == "__main__":
    config = GPT.get_default_config()
    config.model_type = None
    config.n_layer, config.n_head, config.n_embd = 2, 2, 32
    config.vocab_size, config.block_size = 96, 32
    model = GPT(config).eval()
    idx = torch.randint(0, 96, (2, 12))
    torch.export.export(model, (idx,))
    seq = Dim("seq", max=32)
    torch.export.export(model, (idx,), dynamic_shapes={"idx": {0: Dim("batch"), 1: seq}})
