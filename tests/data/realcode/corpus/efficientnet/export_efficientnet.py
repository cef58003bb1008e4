"""Export EfficientNet-B0's stem and first block (narrow) for any image size: `image_size=None` gives
the convolutions TensorFlow's SAME padding computed from the input's size."""

import torch
from efficientnet_pytorch import EfficientNet, get_model_params
from torch.export import Dim

if __name__ == "__main__":
    blocks_args, global_params = get_model_params(
        "efficientnet-b0", {"image_size": None, "width_coefficient": 0.25, "num_classes": 10}
    )
    model = EfficientNet(blocks_args[:1], global_params).eval()  # the full network takes minutes to trace
    model.set_swish(memory_efficient=False)  # the README's advice before exporting
    images = torch.randn(2, 3, 64, 64)
    torch.export.export(model, (images,), dynamic_shapes=({2: Dim("h"), 3: Dim("w")},))
    # Multiples of the stem's stride.
    torch.export.export(model, (images,), dynamic_shapes=({2: 2 * Dim("h2", max=256), 3: 2 * Dim("w2", max=256)},))
