"""A tiny Llama exported with its cache, as transformers' executorch integration documents it.

`TorchExportableModuleForDecoderOnlyLM(...).export(input_ids=ids)` exports the prefill: 8 tokens, a
static cache. Generation then calls the same program with one token at the next cache position
(the wrapper's own `generate` feeds it so), and this program only takes 8 tokens:
decode-step-refused (`Guard failed: input_ids.size()[1] == 8`). The fix keeps one program for the
prompt and the decode step, one Dim for the sequence:

    seq = torch.export.Dim("seq", max=31)
    wrapper.export(input_ids=ids, cache_position=torch.arange(8),
                   dynamic_shapes={"input_ids": {1: seq}, "cache_position": {0: seq}})

Random weights from a config: nothing is downloaded.
"""

import torch
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM

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
model.generation_config.cache_implementation = "static"
wrapper = TorchExportableModuleForDecoderOnlyLM(model, batch_size=1, max_cache_len=32)
ids = torch.randint(0, 128, (1, 8))
program = wrapper.export(input_ids=ids)  # decode-step-refused
