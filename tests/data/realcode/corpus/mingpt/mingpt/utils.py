# ExportLens real-code corpus, case `mingpt`: the package's helpers.
# Modelled on karpathy/minGPT mingpt/utils.py @ 37baab71b9abea1b76ab957409a1cc2fbfba8a26 (MIT License,
# Copyright (c) 2020 Andrej Karpathy). Written for this corpus, not a copy: the yacs-like `CfgNode`
# that mingpt/model.py imports as `CN`, and the seed helper.
import random
from ast import literal_eval

import numpy as np
import torch


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


class CfgNode:
    """A small attribute bag for configuration."""

    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)

    def __str__(self):
        return "\n".join(f"{k}: {v}" for k, v in self.__dict__.items())

    def to_dict(self):
        return {k: v.to_dict() if isinstance(v, CfgNode) else v for k, v in self.__dict__.items()}

    def merge_from_dict(self, d):
        self.__dict__.update(d)

    def merge_from_args(self, args):
        for arg in args:
            key, val = arg.split("=", 1)
            try:
                val = literal_eval(val)
            except ValueError:
                pass
            obj = self
            *path, leaf = key.lstrip("-").split(".")
            for part in path:
                obj = getattr(obj, part)
            setattr(obj, leaf, val)
