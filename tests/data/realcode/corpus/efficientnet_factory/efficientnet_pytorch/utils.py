# ExportLens real-code corpus, case `efficientnet`: the helper layers and the parameter tables.
# Modelled on lukemelas/EfficientNet-PyTorch efficientnet_pytorch/utils.py @
# 7e8b0d312162f335785fb5dcfa1df29a75a1783a (Apache License 2.0, Copyright lukemelas). Written for
# this corpus, not a copy (public repositories' code stays out of this repository): the same
# helper layers and constructor arguments -- Swish (nn.SiLU when torch has it), MemoryEfficientSwish
# over a custom autograd.Function, TensorFlow-style "SAME" convolutions and max-pools with the
# padding computed in forward from the input size (dynamic) or once from a given image size
# (static), chosen by `get_same_padding_conv2d(image_size)` through functools.partial -- and the
# namedtuple parameters decoded from block strings ('r1_k3_s11_e1_i32_o16_se0.25'). The pretrained
# weight URLs and their loader are left out: nothing is downloaded.
import collections
import math
import re
from functools import partial

import torch
from torch import nn
from torch.nn import functional as F

GlobalParams = collections.namedtuple(
    "GlobalParams",
    [
        "width_coefficient", "depth_coefficient", "image_size", "dropout_rate", "num_classes",
        "batch_norm_momentum", "batch_norm_epsilon", "drop_connect_rate", "depth_divisor",
        "min_depth", "include_top",
    ],
)
BlockArgs = collections.namedtuple(
    "BlockArgs",
    ["num_repeat", "kernel_size", "stride", "expand_ratio", "input_filters", "output_filters", "se_ratio", "id_skip"],
)
GlobalParams.__new__.__defaults__ = (None,) * len(GlobalParams._fields)
BlockArgs.__new__.__defaults__ = (None,) * len(BlockArgs._fields)

if hasattr(nn, "SiLU"):
    Swish = nn.SiLU
else:  # torch before 1.7

    class Swish(nn.Module):
        def forward(self, x):
            return x * torch.sigmoid(x)


class SwishImplementation(torch.autograd.Function):
    """x * sigmoid(x), keeping only the input for the backward pass."""

    @staticmethod
    def forward(ctx, i):
        ctx.save_for_backward(i)
        return i * torch.sigmoid(i)

    @staticmethod
    def backward(ctx, grad_output):
        (i,) = ctx.saved_tensors
        s = torch.sigmoid(i)
        return grad_output * (s * (1 + i * (1 - s)))


class MemoryEfficientSwish(nn.Module):
    def forward(self, x):
        return SwishImplementation.apply(x)


def round_filters(filters, global_params):
    """Channels scaled by the width multiplier, rounded to the divisor (at most 10 % down)."""
    multiplier = global_params.width_coefficient
    if not multiplier:
        return filters
    divisor = global_params.depth_divisor
    min_depth = global_params.min_depth or divisor
    filters *= multiplier
    new_filters = max(min_depth, int(filters + divisor / 2) // divisor * divisor)
    if new_filters < 0.9 * filters:
        new_filters += divisor
    return int(new_filters)


def round_repeats(repeats, global_params):
    """Block repeats scaled by the depth multiplier."""
    multiplier = global_params.depth_coefficient
    return repeats if not multiplier else int(math.ceil(multiplier * repeats))


def drop_connect(inputs, p, training):
    """Stochastic depth: drop whole samples of the residual branch while training."""
    assert 0 <= p <= 1, "p must be in range of [0,1]"
    if not training:
        return inputs
    keep_prob = 1 - p
    random_tensor = keep_prob + torch.rand([inputs.shape[0], 1, 1, 1], dtype=inputs.dtype, device=inputs.device)
    return inputs / keep_prob * torch.floor(random_tensor)


def get_width_and_height_from_size(x):
    if isinstance(x, int):
        return x, x
    if isinstance(x, (list, tuple)):
        return x
    raise TypeError()


def calculate_output_image_size(input_image_size, stride):
    """The image size after a "SAME" convolution with this stride (None stays None)."""
    if input_image_size is None:
        return None
    height, width = get_width_and_height_from_size(input_image_size)
    stride = stride if isinstance(stride, int) else stride[0]
    return [int(math.ceil(height / stride)), int(math.ceil(width / stride))]


def get_same_padding_conv2d(image_size=None):
    """Static padding when the image size is known (what exporters need), dynamic otherwise."""
    if image_size is None:
        return Conv2dDynamicSamePadding
    return partial(Conv2dStaticSamePadding, image_size=image_size)


class Conv2dDynamicSamePadding(nn.Conv2d):
    """A TensorFlow "SAME" convolution for any image size: the padding is computed in forward."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, dilation=1, groups=1, bias=True):
        super().__init__(in_channels, out_channels, kernel_size, stride, 0, dilation, groups, bias)
        self.stride = self.stride if len(self.stride) == 2 else [self.stride[0]] * 2

    def forward(self, x):
        ih, iw = x.size()[-2:]
        kh, kw = self.weight.size()[-2:]
        sh, sw = self.stride
        oh, ow = math.ceil(ih / sh), math.ceil(iw / sw)
        pad_h = max((oh - 1) * self.stride[0] + (kh - 1) * self.dilation[0] + 1 - ih, 0)
        pad_w = max((ow - 1) * self.stride[1] + (kw - 1) * self.dilation[1] + 1 - iw, 0)
        if pad_h > 0 or pad_w > 0:
            x = F.pad(x, [pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2])
        return F.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Conv2dStaticSamePadding(nn.Conv2d):
    """A TensorFlow "SAME" convolution for one image size: the padding is a layer made once."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, image_size=None, **kwargs):
        super().__init__(in_channels, out_channels, kernel_size, stride, **kwargs)
        self.stride = self.stride if len(self.stride) == 2 else [self.stride[0]] * 2
        assert image_size is not None
        ih, iw = (image_size, image_size) if isinstance(image_size, int) else image_size
        kh, kw = self.weight.size()[-2:]
        sh, sw = self.stride
        oh, ow = math.ceil(ih / sh), math.ceil(iw / sw)
        pad_h = max((oh - 1) * self.stride[0] + (kh - 1) * self.dilation[0] + 1 - ih, 0)
        pad_w = max((ow - 1) * self.stride[1] + (kw - 1) * self.dilation[1] + 1 - iw, 0)
        if pad_h > 0 or pad_w > 0:
            self.static_padding = nn.ZeroPad2d((pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2))
        else:
            self.static_padding = nn.Identity()

    def forward(self, x):
        x = self.static_padding(x)
        return F.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


def get_same_padding_maxPool2d(image_size=None):
    """The max-pool counterpart (EfficientDet's): static padding when the image size is known."""
    if image_size is None:
        return MaxPool2dDynamicSamePadding
    return partial(MaxPool2dStaticSamePadding, image_size=image_size)


class MaxPool2dDynamicSamePadding(nn.MaxPool2d):
    def __init__(self, kernel_size, stride, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__(kernel_size, stride, padding, dilation, return_indices, ceil_mode)
        self.stride = [self.stride] * 2 if isinstance(self.stride, int) else self.stride
        self.kernel_size = [self.kernel_size] * 2 if isinstance(self.kernel_size, int) else self.kernel_size
        self.dilation = [self.dilation] * 2 if isinstance(self.dilation, int) else self.dilation

    def forward(self, x):
        ih, iw = x.size()[-2:]
        kh, kw = self.kernel_size
        sh, sw = self.stride
        oh, ow = math.ceil(ih / sh), math.ceil(iw / sw)
        pad_h = max((oh - 1) * self.stride[0] + (kh - 1) * self.dilation[0] + 1 - ih, 0)
        pad_w = max((ow - 1) * self.stride[1] + (kw - 1) * self.dilation[1] + 1 - iw, 0)
        if pad_h > 0 or pad_w > 0:
            x = F.pad(x, [pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2])
        return F.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices)


class MaxPool2dStaticSamePadding(nn.MaxPool2d):
    def __init__(self, kernel_size, stride, image_size=None, **kwargs):
        super().__init__(kernel_size, stride, **kwargs)
        self.stride = [self.stride] * 2 if isinstance(self.stride, int) else self.stride
        self.kernel_size = [self.kernel_size] * 2 if isinstance(self.kernel_size, int) else self.kernel_size
        self.dilation = [self.dilation] * 2 if isinstance(self.dilation, int) else self.dilation
        assert image_size is not None
        ih, iw = (image_size, image_size) if isinstance(image_size, int) else image_size
        kh, kw = self.kernel_size
        sh, sw = self.stride
        oh, ow = math.ceil(ih / sh), math.ceil(iw / sw)
        pad_h = max((oh - 1) * self.stride[0] + (kh - 1) * self.dilation[0] + 1 - ih, 0)
        pad_w = max((ow - 1) * self.stride[1] + (kw - 1) * self.dilation[1] + 1 - iw, 0)
        if pad_h > 0 or pad_w > 0:
            self.static_padding = nn.ZeroPad2d((pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2))
        else:
            self.static_padding = nn.Identity()

    def forward(self, x):
        x = self.static_padding(x)
        return F.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices)


class BlockDecoder(object):
    """Block strings <-> BlockArgs ('r1_k3_s11_e1_i32_o16_se0.25': repeats, kernel, strides, ...)."""

    @staticmethod
    def _decode_block_string(block_string):
        assert isinstance(block_string, str)
        options = {}
        for op in block_string.split("_"):
            splits = re.split(r"(\d.*)", op)
            if len(splits) >= 2:
                options[splits[0]] = splits[1]
        assert ("s" in options and len(options["s"]) == 1) or (
            len(options["s"]) == 2 and options["s"][0] == options["s"][1]
        )
        return BlockArgs(
            num_repeat=int(options["r"]),
            kernel_size=int(options["k"]),
            stride=[int(options["s"][0])],
            expand_ratio=int(options["e"]),
            input_filters=int(options["i"]),
            output_filters=int(options["o"]),
            se_ratio=float(options["se"]) if "se" in options else None,
            id_skip=("noskip" not in block_string),
        )

    @staticmethod
    def decode(string_list):
        assert isinstance(string_list, list)
        return [BlockDecoder._decode_block_string(s) for s in string_list]


def efficientnet_params(model_name):
    """(width, depth, resolution, dropout) of each named model."""
    return {
        "efficientnet-b0": (1.0, 1.0, 224, 0.2),
        "efficientnet-b1": (1.0, 1.1, 240, 0.2),
        "efficientnet-b2": (1.1, 1.2, 260, 0.3),
        "efficientnet-b3": (1.2, 1.4, 300, 0.3),
        "efficientnet-b4": (1.4, 1.8, 380, 0.4),
        "efficientnet-b5": (1.6, 2.2, 456, 0.4),
        "efficientnet-b6": (1.8, 2.6, 528, 0.5),
        "efficientnet-b7": (2.0, 3.1, 600, 0.5),
        "efficientnet-b8": (2.2, 3.6, 672, 0.5),
        "efficientnet-l2": (4.3, 5.3, 800, 0.5),
    }[model_name]


def efficientnet(width_coefficient=None, depth_coefficient=None, image_size=None, dropout_rate=0.2,
                 drop_connect_rate=0.2, num_classes=1000, include_top=True):
    """The blocks of EfficientNet-b0 and the global parameters of a scaled model."""
    blocks_args = BlockDecoder.decode([
        "r1_k3_s11_e1_i32_o16_se0.25",
        "r2_k3_s22_e6_i16_o24_se0.25",
        "r2_k5_s22_e6_i24_o40_se0.25",
        "r3_k3_s22_e6_i40_o80_se0.25",
        "r3_k5_s11_e6_i80_o112_se0.25",
        "r4_k5_s22_e6_i112_o192_se0.25",
        "r1_k3_s11_e6_i192_o320_se0.25",
    ])
    global_params = GlobalParams(
        width_coefficient=width_coefficient,
        depth_coefficient=depth_coefficient,
        image_size=image_size,
        dropout_rate=dropout_rate,
        num_classes=num_classes,
        batch_norm_momentum=0.99,
        batch_norm_epsilon=1e-3,
        drop_connect_rate=drop_connect_rate,
        depth_divisor=8,
        min_depth=None,
        include_top=include_top,
    )
    return blocks_args, global_params


def get_model_params(model_name, override_params):
    """Blocks and global parameters of a named model, any global parameter overridden."""
    if not model_name.startswith("efficientnet"):
        raise NotImplementedError("model name is not pre-defined: {}".format(model_name))
    w, d, s, p = efficientnet_params(model_name)
    blocks_args, global_params = efficientnet(width_coefficient=w, depth_coefficient=d, dropout_rate=p, image_size=s)
    if override_params:
        global_params = global_params._replace(**override_params)
    return blocks_args, global_params
