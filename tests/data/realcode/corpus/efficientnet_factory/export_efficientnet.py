"""Export EfficientNet as its README builds it: `EfficientNet.from_name(...)`, a classmethod that
returns `cls(...)` (the class's constructor takes namedtuples no one writes by hand)."""

import torch
from efficientnet_pytorch import EfficientNet
from torch.export import Dim

if __name__ == "__main__":
    # A small b0 (half the width and depth) on 64x64 images: "SAME" padding computed once for that size.
    model = EfficientNet.from_name(
        "efficientnet-b0", image_size=64, num_classes=10, width_coefficient=0.5, depth_coefficient=0.5
    )
    model.eval()
    images = torch.randn(2, 3, 64, 64)
    torch.export.export(model, (images,))
    # The README's advice for exporting: the plain Swish instead of the autograd.Function.
    model.set_swish(memory_efficient=False)
    torch.export.export(model, (images,), dynamic_shapes=({0: Dim("batch")},))
