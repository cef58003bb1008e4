"""Compile fairseq's encoder and run it on a padded batch of token ids (padding index 1)."""

import torch
from transformer_encoder import TransformerEncoder

encoder = TransformerEncoder(vocab_size=40).eval()
encoder = torch.compile(encoder)
tokens = torch.randint(2, 40, (2, 9))
tokens[1, 6:] = 1
with torch.no_grad():
    out = encoder(tokens)
