"""A tiny Llama exported as people first write it, and the proven fix that keeps its cache.

`torch.export.export(model, (ids,), ...)` refuses: the model returns its `DynamicCache`, which
torch cannot flatten (unflattenable-output). `use_cache=False` would export, but generation then
recomputes the whole sequence for every token. The quick-fix (`exportlens check --fix`) rewrites
the call to the wrapper the installed transformers ships, here `TorchExportableModuleForDecoderOnlyLM`
with a static cache of `max_cache_len=32` (the Dim's max) and one sequence Dim below it on
`input_ids` and `cache_position` (its `min=2` kept), proven before it is offered: the rewrite
exports, and its prefill and first decode step give the logits `model.generate` gives. Applied,
the file checks clean.

Random weights from a config: nothing is downloaded.
"""

import torch
from transformers import LlamaConfig, LlamaForCausalLM

config = LlamaConfig(
    vocab_size=128,
    hidden_size=32,
    intermediate_size=64,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    max_position_embeddings=64,
)
model = LlamaForCausalLM(config).eval()
ids = torch.randint(0, 128, (1, 8))
seq = torch.export.Dim("seq", min=2, max=32)
program = torch.export.export(model, (ids,), dynamic_shapes=({1: seq},))  # unflattenable-output
