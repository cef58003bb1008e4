"""Export pytorch-cifar models from its `models` package (`from .resnet import *` ...)."""

import torch
from models import ResNet18, ShuffleNetV2
from torch.export import Dim

if __name__ == "__main__":
    images = torch.randn(2, 3, 32, 32)
    batch = Dim("batch")
    torch.export.export(ResNet18().eval(), (images,), dynamic_shapes=({0: batch},))
    torch.export.export(ShuffleNetV2(net_size=0.5).eval(), (images,), dynamic_shapes=({0: batch},))
    # Any image size: the classifier's Linear expects the 32x32 feature size.
    torch.export.export(ResNet18().eval(), (images,), dynamic_shapes=({0: batch, 2: Dim("h"), 3: Dim("w")},))
