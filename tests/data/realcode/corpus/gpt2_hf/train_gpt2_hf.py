"""Fine-tune step of a small GPT-2 with gradient checkpointing, compiled as the HF docs suggest."""

import torch
from modeling_gpt2 import GPT2Config, GPT2Model

model = GPT2Model(GPT2Config())
model.gradient_checkpointing_enable()
model.train()
compiled = torch.compile(model)
hidden, _ = compiled(torch.randint(0, 50, (2, 12)))
hidden.mean().backward()
