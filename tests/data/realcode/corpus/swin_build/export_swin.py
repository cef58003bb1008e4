"""Export a Swin Transformer the way its `main.py` builds one: a config file merged by
`get_config(args)`, then `build_model(config)`, which picks the class from `config.MODEL.TYPE`."""

import argparse
from pathlib import Path

import torch
from config import get_config
from models import build_model
from torch.export import Dim

if __name__ == "__main__":
    cfg = Path(__file__).parent / "configs" / "swin_micro_patch2_window4_32.json"
    args = argparse.Namespace(cfg=str(cfg), opts=["MODEL.NUM_CLASSES", "10"])
    config = get_config(args)
    model = build_model(config)
    model.eval()
    images = torch.randn(2, 3, config.DATA.IMG_SIZE, config.DATA.IMG_SIZE)
    torch.export.export(model, (images,))
    torch.export.export(model, (images,), dynamic_shapes=({0: Dim("batch")},))
