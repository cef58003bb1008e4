"""Export minGPT as built, without `.eval()`: its dropouts live in the package's submodules
(mingpt/model.py builds them in `CausalSelfAttention`, `Block` and `GPT`), so the exported program
keeps them random."""

import torch
from mingpt.model import GPT

if __name__ == "__main__":
    config = GPT.get_default_config()
    config.model_type = None
    config.n_layer, config.n_head, config.n_embd = 2, 2, 32
    config.vocab_size, config.block_size = 96, 32
    model = GPT(config)
    idx = torch.randint(0, 96, (2, 12))
    torch.export.export(model, (idx,))
