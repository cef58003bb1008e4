# ExportLens real-code corpus, case `efficientnet`: the package's public names.
# Modelled on lukemelas/EfficientNet-PyTorch efficientnet_pytorch/__init__.py @
# 61066be42f1811f62a589102a3af2c3f2492c102 (Apache License 2.0). Written for this corpus.
from .model import VALID_MODELS, EfficientNet
from .utils import BlockArgs, BlockDecoder, GlobalParams, efficientnet, get_model_params
