"""A user's script exporting a Hugging Face-style causal LM from an installed library (tinyformers
stands in for transformers 4.56): with the config's default cache, then without it."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "fakesite" / "lib" / "python3.11" / "site-packages"))

import torch
from tinyformers import Qwen2Config, Qwen2ForCausalLM

if __name__ == "__main__":
    config = Qwen2Config(
        vocab_size=64,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
    )
    model = Qwen2ForCausalLM(config).eval()
    ids = torch.randint(0, 64, (1, 8))
    torch.export.export(model, (ids,))
    torch.export.export(model, (ids,), {"use_cache": False})
