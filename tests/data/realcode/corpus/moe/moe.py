# ExportLens real-code corpus, case `moe`: Mistral's sparse mixture-of-experts layer (Mixtral).
# Modelled on mistralai/mistral-inference src/mistral_inference/moe.py @
# 2557e12d0e1878a1562ece30434820f80aa3e12a (Apache License 2.0, Copyright Mistral AI). Written for
# this corpus, not a copy (public repositories' code stays out of this repository); the original's
# config base class comes from `simple_parsing`, left out here (a plain dataclass). The same routing:
# top-k of the gate's logits, a softmax over the chosen experts, then per expert
# `torch.where(selected_experts == i)` (a data-dependent number of tokens) and an indexed `+=`.
import dataclasses
from typing import List

import torch
import torch.nn.functional as F
from torch import nn


@dataclasses.dataclass
class MoeArgs:
    num_experts: int
    num_experts_per_tok: int


class MoeLayer(nn.Module):
    def __init__(self, experts: List[nn.Module], gate: nn.Module, moe_args: MoeArgs):
        super().__init__()
        assert len(experts) > 0
        self.experts = nn.ModuleList(experts)
        self.gate = gate
        self.args = moe_args

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        gate_logits = self.gate(inputs)
        weights, selected_experts = torch.topk(gate_logits, self.args.num_experts_per_tok)
        weights = F.softmax(weights, dim=1, dtype=torch.float).to(inputs.dtype)
        results = torch.zeros_like(inputs)
        for i, expert in enumerate(self.experts):
            batch_idx, nth_expert = torch.where(selected_experts == i)
            results[batch_idx] += weights[batch_idx, nth_expert, None] * expert(inputs[batch_idx])
        return results
