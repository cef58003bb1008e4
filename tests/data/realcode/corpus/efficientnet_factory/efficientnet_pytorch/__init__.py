# ExportLens real-code corpus, case `efficientnet`: the package's public names.
# Modelled on lukemelas/EfficientNet-PyTorch efficientnet_pytorch/__init__.py @
# 7e8b0d312162f335785fb5dcfa1df29a75a1783a (Apache License 2.0, Copyright lukemelas). Written for
# this corpus, not a copy: the model class and the parameter helpers, re-exported.
__version__ = "0.7.1"
from .model import EfficientNet, VALID_MODELS
from .utils import BlockArgs, BlockDecoder, GlobalParams, efficientnet, get_model_params
