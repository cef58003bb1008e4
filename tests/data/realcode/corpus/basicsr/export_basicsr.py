"""Export Real-ESRGAN's x2 generator (BasicSR's RRDBNet, small config) for any image size."""

import torch
from basicsr.archs.rrdbnet_arch import RRDBNet
from torch.export import Dim

if __name__ == "__main__":
    model = RRDBNet(num_in_ch=3, num_out_ch=3, scale=2, num_feat=16, num_block=1, num_grow_ch=8).eval()
    low_res = torch.randn(1, 3, 32, 48)
    torch.export.export(model, (low_res,))
    # Any size: the x2 model pixel-unshuffles first, which asserts even sides.
    torch.export.export(model, (low_res,), dynamic_shapes=({2: Dim("h"), 3: Dim("w")},))
    torch.export.export(model, (low_res,), dynamic_shapes=({2: 2 * Dim("h2", max=512), 3: 2 * Dim("w2", max=512)},))
    # The x4 model has no such assert.
    x4 = RRDBNet(num_in_ch=3, num_out_ch=3, scale=4, num_feat=16, num_block=1, num_grow_ch=8).eval()
    torch.export.export(x4, (low_res,), dynamic_shapes=({2: Dim("h"), 3: Dim("w")},))
