"""Export PyTorch-YOLOv3 loaded with its own `load_model` (which moves it to `cuda` when
`torch.cuda.is_available()`), fed images made on the CPU, as a detection script does."""

import os

import torch

from pytorchyolo.models import load_model

if __name__ == "__main__":
    config = os.path.join(os.path.dirname(os.path.abspath(__file__)), "config", "yolov3-mini.cfg")
    model = load_model(config)
    model.eval()
    images = torch.rand(1, 3, 64, 64)
    torch.export.export(model, (images,))
