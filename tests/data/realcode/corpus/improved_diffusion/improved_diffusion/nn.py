# ExportLens real-code corpus, case `improved_diffusion`: the package's layer helpers.
# Modelled on openai/improved-diffusion improved_diffusion/nn.py @ 1bc7bbbdc414d83d4abf2ad8cc1446dc36c4e4d5
# (MIT License, Copyright (c) 2021 OpenAI). Written for this corpus, not a copy (public repositories'
# code stays out of this repository): the helpers unet.py imports relatively, with the same
# behaviour: a float32 GroupNorm, N-d conv / pool factories, zero-initialised modules, sinusoidal
# timestep embeddings, and gradient checkpointing through a custom autograd.Function.
import math

import torch as th
import torch.nn as nn


class SiLU(nn.Module):
    def forward(self, x):
        return x * th.sigmoid(x)


class GroupNorm32(nn.GroupNorm):
    def forward(self, x):
        return super().forward(x.float()).type(x.dtype)


def conv_nd(dims, *args, **kwargs):
    """A 1-D, 2-D or 3-D convolution."""
    if dims == 1:
        return nn.Conv1d(*args, **kwargs)
    if dims == 2:
        return nn.Conv2d(*args, **kwargs)
    if dims == 3:
        return nn.Conv3d(*args, **kwargs)
    raise ValueError(f"unsupported dimensions: {dims}")


def linear(*args, **kwargs):
    return nn.Linear(*args, **kwargs)


def avg_pool_nd(dims, *args, **kwargs):
    """A 1-D, 2-D or 3-D average pooling."""
    pools = {1: nn.AvgPool1d, 2: nn.AvgPool2d, 3: nn.AvgPool3d}
    if dims not in pools:
        raise ValueError(f"unsupported dimensions: {dims}")
    return pools[dims](*args, **kwargs)


def zero_module(module):
    for p in module.parameters():
        p.detach().zero_()
    return module


def normalization(channels):
    return GroupNorm32(32, channels)


def timestep_embedding(timesteps, dim, max_period=10000):
    """[N] timesteps (possibly fractional) -> [N x dim] sinusoidal embeddings."""
    half = dim // 2
    freqs = th.exp(-math.log(max_period) * th.arange(start=0, end=half, dtype=th.float32) / half)
    freqs = freqs.to(device=timesteps.device)
    args = timesteps[:, None].float() * freqs[None]
    embedding = th.cat([th.cos(args), th.sin(args)], dim=-1)
    if dim % 2:
        embedding = th.cat([embedding, th.zeros_like(embedding[:, :1])], dim=-1)
    return embedding


def checkpoint(func, inputs, params, flag):
    """Run func(*inputs), without keeping activations when flag is set (recomputed in backward)."""
    if flag:
        args = tuple(inputs) + tuple(params)
        return CheckpointFunction.apply(func, len(inputs), *args)
    return func(*inputs)


class CheckpointFunction(th.autograd.Function):
    @staticmethod
    def forward(ctx, run_function, length, *args):
        ctx.run_function = run_function
        ctx.input_tensors = list(args[:length])
        ctx.input_params = list(args[length:])
        with th.no_grad():
            output_tensors = ctx.run_function(*ctx.input_tensors)
        return output_tensors

    @staticmethod
    def backward(ctx, *output_grads):
        ctx.input_tensors = [x.detach().requires_grad_(True) for x in ctx.input_tensors]
        with th.enable_grad():
            shallow_copies = [x.view_as(x) for x in ctx.input_tensors]
            output_tensors = ctx.run_function(*shallow_copies)
        input_grads = th.autograd.grad(
            output_tensors, ctx.input_tensors + ctx.input_params, output_grads, allow_unused=True
        )
        del ctx.input_tensors
        del ctx.input_params
        return (None, None) + input_grads
