# ExportLens real-code corpus, case `gpt2_hf`: Hugging Face transformers' GPT-2.
# Modelled on huggingface/transformers src/transformers/models/gpt2/modeling_gpt2.py
# @ 0010f60284ab4b9d14b7df9c6525b1a2ad44e640 (Apache License 2.0, Copyright 2018 The OpenAI Team
# Authors and HuggingFace Inc. team). Written for this corpus, not a copy (public repositories'
# code stays out of this repository): the same classes and forward paths: a module-level
# `logger = logging.get_logger(__name__)` whose `logger.warning_once(...)` runs inside
# `GPT2Model.forward` when gradient checkpointing is on in training with `use_cache`, blocks run
# through `torch.utils.checkpoint`, Conv1D projections, a causal-mask buffer sliced by length.
import math

import torch
import torch.utils.checkpoint
from torch import nn

import hf_logging as logging

logger = logging.get_logger(__name__)


class GPT2Config:
    def __init__(self, vocab_size=50, n_positions=32, n_embd=16, n_layer=2, n_head=2, layer_norm_epsilon=1e-5):
        self.vocab_size = vocab_size
        self.max_position_embeddings = n_positions
        self.hidden_size = n_embd
        self.num_hidden_layers = n_layer
        self.num_attention_heads = n_head
        self.layer_norm_epsilon = layer_norm_epsilon
        self.use_cache = True


class Conv1D(nn.Module):
    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.empty(nx, nf))
        self.bias = nn.Parameter(torch.zeros(nf))
        nn.init.normal_(self.weight, std=0.02)

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


class GPT2Attention(nn.Module):
    def __init__(self, config):
        super().__init__()
        n = config.max_position_embeddings
        self.register_buffer("bias", torch.tril(torch.ones((n, n), dtype=torch.bool)).view(1, 1, n, n))
        self.embed_dim = config.hidden_size
        self.num_heads = config.num_attention_heads
        self.head_dim = self.embed_dim // self.num_heads
        self.c_attn = Conv1D(3 * self.embed_dim, self.embed_dim)
        self.c_proj = Conv1D(self.embed_dim, self.embed_dim)

    def _split_heads(self, tensor):
        tensor = tensor.view(tensor.size()[:-1] + (self.num_heads, self.head_dim))
        return tensor.permute(0, 2, 1, 3)

    def forward(self, hidden_states, use_cache=False):
        query, key, value = self.c_attn(hidden_states).split(self.embed_dim, dim=2)
        query, key, value = self._split_heads(query), self._split_heads(key), self._split_heads(value)
        present = (key, value) if use_cache is True else None
        weights = torch.matmul(query, key.transpose(-1, -2)) / math.sqrt(self.head_dim)
        length = query.size(-2)
        causal_mask = self.bias[:, :, :length, :length]
        weights = torch.where(causal_mask, weights, torch.finfo(weights.dtype).min)
        output = torch.matmul(nn.functional.softmax(weights, dim=-1), value)
        output = output.permute(0, 2, 1, 3).contiguous()
        output = self.c_proj(output.view(output.size()[:-2] + (self.embed_dim,)))
        return output, present


class GPT2Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_epsilon)
        self.attn = GPT2Attention(config)
        self.ln_2 = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_epsilon)
        self.mlp = nn.Sequential(
            Conv1D(4 * config.hidden_size, config.hidden_size), nn.GELU(), Conv1D(config.hidden_size, 4 * config.hidden_size)
        )

    def forward(self, hidden_states, use_cache=False):
        attn_output, present = self.attn(self.ln_1(hidden_states), use_cache=use_cache)
        hidden_states = attn_output + hidden_states
        hidden_states = hidden_states + self.mlp(self.ln_2(hidden_states))
        return hidden_states, present


class GPT2Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.wte = nn.Embedding(config.vocab_size, config.hidden_size)
        self.wpe = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.h = nn.ModuleList([GPT2Block(config) for _ in range(config.num_hidden_layers)])
        self.ln_f = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_epsilon)
        self.gradient_checkpointing = False

    def gradient_checkpointing_enable(self):
        self.gradient_checkpointing = True

    def forward(self, input_ids, use_cache=None):
        use_cache = use_cache if use_cache is not None else self.config.use_cache
        position_ids = torch.arange(input_ids.size(-1), dtype=torch.long, device=input_ids.device)
        hidden_states = self.wte(input_ids) + self.wpe(position_ids).unsqueeze(0)

        if self.gradient_checkpointing and self.training:
            if use_cache:
                logger.warning_once(
                    "`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`..."
                )
                use_cache = False

        presents = () if use_cache else None
        for block in self.h:
            if self.gradient_checkpointing and self.training:
                hidden_states, present = torch.utils.checkpoint.checkpoint(
                    block, hidden_states, use_cache, use_reentrant=False
                )
            else:
                hidden_states, present = block(hidden_states, use_cache=use_cache)
            if use_cache is True:
                presents = presents + (present,)
        return self.ln_f(hidden_states), presents
