"""The super-resolution net of the MMDeploy tutorial, written after its chapter 2
(open-mmlab/mmdeploy `docs/zh_cn/tutorial/02_challenges.md`, `SuperResolutionNet`): the same
layers and forward path (bicubic `interpolate` by a scale passed to `forward`, then three convs).
The script compiles it and calls it at each scale, as the tutorial's comparison of scales does;
random init and a small random image in place of its checkpoint and photo."""

import torch
from torch import nn
from torch.nn.functional import interpolate


class SuperResolutionNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, kernel_size=9, padding=4)
        self.conv2 = nn.Conv2d(64, 32, kernel_size=1, padding=0)
        self.conv3 = nn.Conv2d(32, 3, kernel_size=5, padding=2)
        self.relu = nn.ReLU()

    def forward(self, x, upscale_factor):
        x = interpolate(x, scale_factor=upscale_factor, mode="bicubic", align_corners=False)
        out = self.relu(self.conv1(x))
        out = self.relu(self.conv2(out))
        return self.conv3(out)


torch_model = torch.compile(SuperResolutionNet())
input_img = torch.randn(1, 3, 16, 16)
for upscale_factor in (2, 3, 4):
    torch_output = torch_model(input_img, upscale_factor)
