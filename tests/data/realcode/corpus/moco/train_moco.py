"""MoCo v2's training step in the shape of facebookresearch/moco main_moco.py's `train()` @ 4397a04
(MIT License): the model compiled, two augmented views of a random batch, cross-entropy on the
logits, SGD step. A small CNN stands in for torchvision's ResNet-50 (not installable here)."""

import torch
import torch.nn as nn
from builder import MoCo


class SmallEncoder(nn.Module):
    def __init__(self, num_classes=128):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                                      nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(8, num_classes)

    def forward(self, x):
        return self.fc(self.features(x))


if __name__ == "__main__":
    torch.manual_seed(0)
    model = MoCo(SmallEncoder, dim=16, K=32, m=0.999, T=0.2, mlp=True)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), 0.03, momentum=0.9, weight_decay=1e-4)
    model = torch.compile(model)
    for i in range(2):
        images = [torch.randn(4, 3, 16, 16), torch.randn(4, 3, 16, 16)]
        output, target = model(im_q=images[0], im_k=images[1])
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
