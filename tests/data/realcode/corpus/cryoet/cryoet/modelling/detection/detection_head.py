# ExportLens real-code corpus, case `cryoet`: the detection head and the detector's output dataclass.
# Modelled on BloodAxe/Kaggle-2024-CryoET cryoet/modelling/detection/detection_head.py @
# 005427381fb4d6cc54a79887a20f6821fe7aaa44 (the CZII CryoET Kaggle challenge's 1st-place solution; the
# repository states no license). Written for this corpus, not a copy: a plain `@dataclasses.dataclass`
# output (`ObjectDetectionOutput`, not registered with torch's pytree) and a 3D head that predicts
# class logits and offsets, as (logits, offsets).
import dataclasses
from typing import Dict, List, Optional

import torch
from torch import Tensor, nn


@dataclasses.dataclass
class ObjectDetectionOutput:
    logits: List[Tensor]
    offsets: List[Tensor]
    strides: List[int]

    loss: Optional[Tensor]
    loss_dict: Optional[Dict]


class ObjectDetectionHead(nn.Module):
    def __init__(
        self,
        in_channels: int,
        num_classes: int,
        stride: int,
        intermediate_channels: int = 64,
        offset_intermediate_channels: int = 32,
        use_offset_head: bool = True,
    ):
        super().__init__()
        self.use_offset_head = use_offset_head
        self.cls_stem = nn.Sequential(
            nn.Conv3d(in_channels, intermediate_channels, kernel_size=3, padding=1),
            nn.SiLU(inplace=True),
            nn.InstanceNorm3d(intermediate_channels),
        )
        self.cls_head = nn.Conv3d(intermediate_channels, num_classes, kernel_size=1, padding=0)
        if use_offset_head:
            self.offset_stem = nn.Sequential(
                nn.Conv3d(in_channels, offset_intermediate_channels, kernel_size=3, padding=1),
                nn.SiLU(inplace=True),
                nn.InstanceNorm3d(offset_intermediate_channels),
            )
            self.offset_head = nn.Conv3d(offset_intermediate_channels, 3, kernel_size=1, padding=0)
            torch.nn.init.zeros_(self.offset_head.weight)
            torch.nn.init.constant_(self.offset_head.bias, 0)
        self.stride = stride
        torch.nn.init.zeros_(self.cls_head.weight)
        torch.nn.init.constant_(self.cls_head.bias, -4)

    def forward(self, features):
        logits = self.cls_head(self.cls_stem(features))
        if self.use_offset_head:
            offsets = self.offset_head(self.offset_stem(features)).tanh() * self.stride
        else:
            offsets = torch.zeros_like(logits[:, 0:2, ...])
        return logits, offsets
