"""A diffusion training step in the shape of improved-diffusion's scripts/image_train.py and
train_util.py (TrainLoop.run_step: forward_backward, optimize_normal, _update_ema) and
gaussian_diffusion.py (q_sample, an MSE loss on the noise), openai/improved-diffusion @ 1bc7bbb
(MIT License, Copyright (c) 2021 OpenAI). The U-Net is trained with gradient checkpointing on
(`use_checkpoint=True`) and compiled; the EMA update runs eagerly after the optimizer step."""

import copy

import torch
import torch.nn.functional as F
from improved_diffusion.unet import UNetModel


def update_ema(target_params, source_params, rate=0.99):
    for targ, src in zip(target_params, source_params):
        targ.detach().mul_(rate).add_(src, alpha=1 - rate)


if __name__ == "__main__":
    torch.manual_seed(0)
    model = UNetModel(
        in_channels=3, model_channels=32, out_channels=3, num_res_blocks=1,
        attention_resolutions=(2,), dropout=0.0, channel_mult=(1, 2), num_heads=2,
        use_checkpoint=True,
    )
    ema_params = copy.deepcopy(list(model.parameters()))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    betas = torch.linspace(1e-4, 0.02, 1000)
    alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
    ddp_model = torch.compile(model)
    for step in range(2):
        batch = torch.randn(2, 3, 16, 16)
        t = torch.randint(0, 1000, (2,))
        noise = torch.randn_like(batch)
        a = alphas_cumprod[t].view(-1, 1, 1, 1)
        x_t = a.sqrt() * batch + (1 - a).sqrt() * noise
        loss = F.mse_loss(ddp_model(x_t, t), noise)
        opt.zero_grad()
        loss.backward()
        opt.step()
        update_ema(ema_params, model.parameters(), rate=0.9999)
