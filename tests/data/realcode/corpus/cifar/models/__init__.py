# ExportLens real-code corpus, case `cifar`: the models package, star-importing each architecture.
# Modelled on kuangliu/pytorch-cifar models/__init__.py @ 49b7aa97b0c12fe0d4054e670403a16b6b834ddd
# (MIT License, Copyright (c) 2017 liukuang), reduced to the two architectures this corpus holds.
from .resnet import *  # noqa: F403
from .shufflenetv2 import *  # noqa: F403
