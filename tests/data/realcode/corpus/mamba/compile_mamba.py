"""Generating with mamba-minimal compiled: each step feeds a longer sequence (small config, random weights)."""

import torch

from mamba import Mamba, ModelArgs

model = Mamba(ModelArgs(d_model=16, n_layer=1, vocab_size=32)).eval()
compiled = torch.compile(model)
with torch.no_grad():
    for length in (12, 13, 14):
        logits = compiled(torch.randint(0, 32, (1, length)))
