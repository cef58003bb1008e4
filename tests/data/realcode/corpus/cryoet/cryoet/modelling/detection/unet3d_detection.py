# ExportLens real-code corpus, case `cryoet`: a 3D U-Net particle detector that returns a dataclass.
# Modelled on BloodAxe/Kaggle-2024-CryoET cryoet/modelling/detection/unet3d_detection.py @
# 097c7bcb3a13be0780d09f86fe01379ac0397975 (the CZII CryoET Kaggle challenge's 1st-place solution; the
# repository states no license). Written for this corpus, not a copy (public repositories' code stays
# out of this repository): the same classes, constructor arguments and forward paths: RepVGG-style 3D
# blocks, an encoder / decoder with skip connections, one detection head per decoder stride, and
# `return ObjectDetectionOutput(logits=..., offsets=..., strides=..., loss=..., loss_dict=...)`.
# Differences: the config is a plain class (the original subclasses transformers' PretrainedConfig),
# and each head returns (logits, offsets) as detection_head.py's does at the commit named there.
from typing import Iterable

import torch
import torch.nn as nn

from .detection_head import ObjectDetectionHead, ObjectDetectionOutput
from .functional import object_detection_loss


class RepVGGBlock3D(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, stride: int = 1, use_residual: bool = True, bias=False):
        super().__init__()
        self.use_residual = use_residual
        if self.use_residual:
            self.alpha = torch.nn.Parameter(torch.ones(1), requires_grad=True)
        else:
            self.alpha = 1
        self.conv3x3 = nn.Conv3d(in_channels, out_channels, kernel_size=3, stride=stride, padding=1, bias=bias)
        self.conv1x1 = nn.Conv3d(in_channels, out_channels, kernel_size=1, stride=stride, padding=0, bias=bias)
        self.bn = nn.InstanceNorm3d(out_channels)
        self.act = nn.SiLU(inplace=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.conv3x3(x) + self.conv1x1(x)
        if self.use_residual:
            out = out + x * self.alpha
        return self.act(self.bn(out))


class Downsample3D(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.down = nn.Conv3d(in_channels, out_channels, kernel_size=3, stride=2, padding=1)

    def forward(self, x):
        return self.down(x)


class Upsample3D(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.up = nn.ConvTranspose3d(in_channels, out_channels, kernel_size=2, stride=2)

    def forward(self, x, output_size=None):
        return self.up(x, output_size)


class Unet3DEncoderStage(nn.Module):
    def __init__(self, in_channels, out_channels, num_blocks):
        super().__init__()
        self.down = Downsample3D(in_channels, out_channels)
        self.blocks = nn.Sequential(
            *[RepVGGBlock3D(in_channels=out_channels, out_channels=out_channels, use_residual=True) for _ in range(num_blocks)]
        )

    def forward(self, x):
        return self.blocks(self.down(x))


class Unet3DDecoderStage(nn.Module):
    def __init__(self, in_channels, out_channels, skip_channels: int, num_blocks):
        super().__init__()
        self.up = Upsample3D(in_channels, out_channels)
        blocks = []
        in_channels = out_channels + skip_channels
        for i in range(num_blocks):
            blocks.append(RepVGGBlock3D(in_channels=in_channels, out_channels=out_channels, use_residual=i > 0))
            in_channels = out_channels
        self.blocks = nn.Sequential(*blocks)
        self.out_channels = out_channels

    def forward(self, x, skip):
        x_up = self.up(x, output_size=skip.shape[2:])
        return self.blocks(torch.cat([x_up, skip], dim=1))


class UNet3DBackbone(nn.Module):
    """3D U-Net encoder / decoder that decodes down to a given stride only."""

    def __init__(
        self,
        in_channels: int,
        encoder_channels: Iterable[int],
        num_blocks_per_stage: Iterable[int],
        num_blocks_per_decoder_stage: Iterable[int],
    ):
        super().__init__()
        self.in_channels = in_channels
        self.encoder_channels = tuple(encoder_channels)
        self.num_down_stages = len(self.encoder_channels)
        self.num_blocks_per_stage = tuple(num_blocks_per_stage)
        self.num_blocks_per_decoder_stage = tuple(num_blocks_per_decoder_stage)

        self.encoders = nn.ModuleList()
        prev_ch = in_channels
        for stage_idx, out_ch in enumerate(self.encoder_channels):
            self.encoders.append(Unet3DEncoderStage(prev_ch, out_ch, self.num_blocks_per_stage[stage_idx]))
            prev_ch = out_ch
        self.strides = [2**i for i in range(self.num_down_stages)]

        self.num_decoder_stages = len(self.num_blocks_per_decoder_stage)
        decode_channels = self.encoder_channels[::-1]
        self.decoders = nn.ModuleList()
        self.decoder_output_channels = []
        self.decoder_strides = []
        for i in range(self.num_decoder_stages):
            up_in_ch, up_out_ch = decode_channels[i], decode_channels[i + 1]
            self.decoders.append(
                Unet3DDecoderStage(up_in_ch, up_out_ch, skip_channels=up_out_ch, num_blocks=self.num_blocks_per_decoder_stage[i])
            )
            self.decoder_output_channels.append(up_out_ch)
            self.decoder_strides.append(self.strides[::-1][i])

    def forward(self, x: torch.Tensor):
        skips = []
        out = x
        for stage in self.encoders:
            out = stage(out)
            skips.append(out)
        skips = skips[::-1]
        out = skips[0]
        out_features = []
        for i, dec_stage in enumerate(self.decoders):
            out = dec_stage(out, skips[i + 1])
            out_features.append(out)
        return out_features


class UNet3DForObjectDetectionConfig:
    def __init__(
        self,
        in_channels=1,
        num_classes=5,
        encoder_channels=(16, 24, 32, 64, 96),
        num_blocks_per_stage=(1, 2, 3, 2, 2),
        num_blocks_per_decoder_stage=(2, 2, 2, 2),
    ):
        self.in_channels = in_channels
        self.num_classes = num_classes
        self.encoder_channels = encoder_channels
        self.num_blocks_per_stage = num_blocks_per_stage
        self.num_blocks_per_decoder_stage = num_blocks_per_decoder_stage


class UNet3DForObjectDetection(nn.Module):
    def __init__(self, config: UNet3DForObjectDetectionConfig):
        super().__init__()
        self.backbone = UNet3DBackbone(
            in_channels=config.in_channels,
            encoder_channels=config.encoder_channels,
            num_blocks_per_stage=config.num_blocks_per_stage,
            num_blocks_per_decoder_stage=config.num_blocks_per_decoder_stage,
        )
        self.heads = nn.ModuleList(
            [
                ObjectDetectionHead(
                    in_channels=in_channels,
                    num_classes=config.num_classes,
                    intermediate_channels=16,
                    offset_intermediate_channels=8,
                    stride=stride,
                )
                for in_channels, stride in zip(self.backbone.decoder_output_channels, self.backbone.decoder_strides)
            ]
        )

    def forward(self, volume, labels=None, **loss_kwargs):
        features = self.backbone(volume)

        logits = []
        offsets = []
        strides = []
        for i, head in enumerate(self.heads):
            head_logits, head_offsets = head(features[i])
            logits.append(head_logits)
            offsets.append(head_offsets)
            strides.append(head.stride)

        if torch.jit.is_tracing():
            return logits, offsets, strides

        loss = None
        loss_dict = None
        if labels is not None:
            loss, loss_dict = object_detection_loss(logits, offsets, strides, labels, **loss_kwargs)

        return ObjectDetectionOutput(logits=logits, offsets=offsets, strides=strides, loss=loss, loss_dict=loss_dict)
