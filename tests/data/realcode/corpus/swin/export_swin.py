"""Export a Swin-T image classifier: static, then for any batch size."""

import torch
from swin_transformer import SwinTransformer
from torch.export import Dim

if __name__ == "__main__":
    model = SwinTransformer(num_classes=10).eval()  # Swin-T: 224x224, depths 2-2-6-2
    images = torch.randn(2, 3, 224, 224)
    torch.export.export(model, (images,))
    torch.export.export(model, (images,), dynamic_shapes=({0: Dim("batch")},))
