# Written for the ExportLens real-code corpus after eriklindernoren/PyTorch-YOLOv3,
# pytorchyolo/utils/utils.py @ c70b6e1 (GPL-3.0): only the weight initialisation `load_model` applies.
import torch


def weights_init_normal(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        torch.nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif classname.find("BatchNorm2d") != -1:
        torch.nn.init.normal_(m.weight.data, 1.0, 0.02)
        torch.nn.init.constant_(m.bias.data, 0.0)
