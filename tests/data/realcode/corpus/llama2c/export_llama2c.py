"""Export llama2.c's Transformer (RoPE, grouped-query attention, tied embeddings)."""

import torch
from model import ModelArgs, Transformer
from torch.export import Dim

if __name__ == "__main__":
    args = ModelArgs(
        dim=32, n_layers=2, n_heads=4, n_kv_heads=2, vocab_size=96, multiple_of=16, max_seq_len=64
    )
    model = Transformer(args).eval()
    tokens = torch.randint(0, args.vocab_size, (2, 16))
    torch.export.export(model, (tokens,))
    torch.export.export(model, (tokens,), dynamic_shapes={"tokens": {1: Dim("seq")}})
    torch.export.export(model, (tokens,), dynamic_shapes={"tokens": {1: Dim("seq", max=args.max_seq_len)}})
