# ExportLens real-code corpus, case `improved_diffusion`: half-precision helpers.
# Modelled on openai/improved-diffusion improved_diffusion/fp16_util.py @
# 1bc7bbbdc414d83d4abf2ad8cc1446dc36c4e4d5 (MIT License, Copyright (c) 2021 OpenAI). Written for this
# corpus, not a copy: the two converters unet.py imports relatively.
import torch.nn as nn


def convert_module_to_f16(module):
    if isinstance(module, (nn.Conv1d, nn.Conv2d, nn.Conv3d)):
        module.weight.data = module.weight.data.half()
        module.bias.data = module.bias.data.half()


def convert_module_to_f32(module):
    if isinstance(module, (nn.Conv1d, nn.Conv2d, nn.Conv3d)):
        module.weight.data = module.weight.data.float()
        module.bias.data = module.bias.data.float()
