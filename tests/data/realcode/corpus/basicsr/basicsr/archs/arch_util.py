# ExportLens real-code corpus, case `basicsr`: the helpers the RRDB network is built from.
# Modelled on XPixelGroup/BasicSR basicsr/archs/arch_util.py @ 0f662ecdbcbf4459e46dd81a8354431be3d04fe2
# (Apache License 2.0). Written for this corpus, not a copy: `make_layer`, `default_init_weights` and
# `pixel_unshuffle`, which asserts that the height and width divide by the scale before viewing the
# image as (h / scale) x (w / scale) blocks.
import torch
from torch import nn as nn
from torch.nn import init as init
from torch.nn.modules.batchnorm import _BatchNorm


@torch.no_grad()
def default_init_weights(module_list, scale=1, bias_fill=0, **kwargs):
    if not isinstance(module_list, list):
        module_list = [module_list]
    for module in module_list:
        for m in module.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                init.kaiming_normal_(m.weight, **kwargs)
                m.weight.data *= scale
                if m.bias is not None:
                    m.bias.data.fill_(bias_fill)
            elif isinstance(m, _BatchNorm):
                init.constant_(m.weight, 1)
                if m.bias is not None:
                    m.bias.data.fill_(bias_fill)


def make_layer(basic_block, num_basic_block, **kwarg):
    layers = []
    for _ in range(num_basic_block):
        layers.append(basic_block(**kwarg))
    return nn.Sequential(*layers)


def pixel_unshuffle(x, scale):
    """(b, c, hh, hw) -> (b, c * scale**2, hh / scale, hw / scale)."""
    b, c, hh, hw = x.size()
    out_channel = c * (scale**2)
    assert hh % scale == 0 and hw % scale == 0
    h = hh // scale
    w = hw // scale
    x_view = x.view(b, c, h, scale, w, scale)
    return x_view.permute(0, 1, 3, 5, 2, 4).reshape(b, out_channel, h, w)
