# ExportLens real-code corpus, case `fairseq_encoder`: fairseq's Transformer encoder.
# Modelled on facebookresearch/fairseq fairseq/models/transformer/transformer_encoder.py
# @ 0066c082555929061191e9fc5d491fbfc6cbd0bf (MIT License, Copyright (c) Facebook, Inc. and its
# affiliates). Written for this corpus, not a copy (public repositories' code stays out of this
# repository): the same classes and forward paths: the padding mask `src_tokens.eq(padding_idx)`,
# `has_pads = src_tokens.device.type == "xla" or encoder_padding_mask.any()`, then `if has_pads:`
# zeroing the padded embeddings (a branch on a tensor's value), scaled embeddings plus learned
# positions, post-norm layers over (T, B, C) with the mask as key_padding_mask.
import math

import torch
from torch import nn


class TransformerEncoderLayer(nn.Module):
    def __init__(self, embed_dim, heads, ffn_dim):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(embed_dim, heads)
        self.self_attn_layer_norm = nn.LayerNorm(embed_dim)
        self.fc1 = nn.Linear(embed_dim, ffn_dim)
        self.fc2 = nn.Linear(ffn_dim, embed_dim)
        self.final_layer_norm = nn.LayerNorm(embed_dim)

    def forward(self, x, encoder_padding_mask=None):
        residual = x
        x, _ = self.self_attn(x, x, x, key_padding_mask=encoder_padding_mask, need_weights=False)
        x = self.self_attn_layer_norm(residual + x)
        residual = x
        x = self.fc2(torch.relu(self.fc1(x)))
        return self.final_layer_norm(residual + x)


class TransformerEncoder(nn.Module):
    def __init__(self, vocab_size, embed_dim=16, heads=2, ffn_dim=32, layers=2, padding_idx=1, max_positions=64):
        super().__init__()
        self.padding_idx = padding_idx
        self.embed_tokens = nn.Embedding(vocab_size, embed_dim, padding_idx=padding_idx)
        self.embed_scale = math.sqrt(embed_dim)
        self.embed_positions = nn.Embedding(max_positions, embed_dim)
        self.layers = nn.ModuleList([TransformerEncoderLayer(embed_dim, heads, ffn_dim) for _ in range(layers)])

    def forward_embedding(self, src_tokens):
        embed = self.embed_scale * self.embed_tokens(src_tokens)
        positions = torch.arange(src_tokens.size(1), device=src_tokens.device)
        return embed + self.embed_positions(positions), embed

    def forward(self, src_tokens, src_lengths=None):
        encoder_padding_mask = src_tokens.eq(self.padding_idx)
        has_pads = src_tokens.device.type == "xla" or encoder_padding_mask.any()

        x, encoder_embedding = self.forward_embedding(src_tokens)

        # account for padding while computing the representation
        if has_pads:
            x = x * (1 - encoder_padding_mask.unsqueeze(-1).type_as(x))

        # B x T x C -> T x B x C
        x = x.transpose(0, 1)
        for layer in self.layers:
            x = layer(x, encoder_padding_mask=encoder_padding_mask)
        return {"encoder_out": [x], "encoder_padding_mask": [encoder_padding_mask]}
