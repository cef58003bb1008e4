"""Hooks on a compiled model: pytorch-grad-cam's ActivationsAndGradients on a small CNN's layer,
the model called compiled (not through the wrapper's `__call__`, which would empty the lists) and a
class score's backward, as a training loop that logs activations would."""
import torch
import torch.nn as nn
from activations_and_gradients import ActivationsAndGradients


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.head = nn.Sequential(nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 5))

    def forward(self, x):
        return self.head(self.conv(x))


if __name__ == "__main__":
    net = Net()
    hooks = ActivationsAndGradients(net, [net.conv], None)
    model = torch.compile(net)
    x = torch.randn(2, 3, 16, 16)
    out = model(x)
    out[:, 0].sum().backward()
    print(len(hooks.activations), len(hooks.gradients))
