# ExportLens real-code corpus, case `swin`: the configuration the model is built from.
# Modelled on microsoft/Swin-Transformer config.py @ f82860bfb5225915aca09c3227159ee9e1df874d (MIT
# License, Copyright (c) Microsoft Corporation). Written for this corpus, not a copy: the same
# defaults tree (`_C.MODEL.SWIN.EMBED_DIM` ...) and `get_config(args)`, which merges the file named
# by `args.cfg` (and its `BASE` files) over the defaults, then `args.opts` (KEY VALUE pairs). The
# original's yacs CfgNode and YAML files are a small attribute dict and JSON files here (no extra
# package); the training, data and AMP settings are reduced to those the model reads.
import copy
import json
import os


class CN(dict):
    """A nested dict read as attributes (yacs's CfgNode, without freezing)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError as exc:
            raise AttributeError(name) from exc

    def __setattr__(self, name, value):
        self[name] = value

    def merge(self, other):
        for key, value in other.items():
            if isinstance(value, dict) and isinstance(self.get(key), CN):
                self[key].merge(value)
            else:
                self[key] = value


_C = CN()
_C.BASE = [""]
_C.DATA = CN()
_C.DATA.IMG_SIZE = 224
_C.MODEL = CN()
_C.MODEL.TYPE = "swin"
_C.MODEL.NAME = "swin_tiny_patch4_window7_224"
_C.MODEL.NUM_CLASSES = 1000
_C.MODEL.DROP_RATE = 0.0
_C.MODEL.DROP_PATH_RATE = 0.1
_C.MODEL.SWIN = CN()
_C.MODEL.SWIN.PATCH_SIZE = 4
_C.MODEL.SWIN.IN_CHANS = 3
_C.MODEL.SWIN.EMBED_DIM = 96
_C.MODEL.SWIN.DEPTHS = [2, 2, 6, 2]
_C.MODEL.SWIN.NUM_HEADS = [3, 6, 12, 24]
_C.MODEL.SWIN.WINDOW_SIZE = 7
_C.MODEL.SWIN.MLP_RATIO = 4.0
_C.MODEL.SWIN.QKV_BIAS = True
_C.MODEL.SWIN.QK_SCALE = None
_C.MODEL.SWIN.APE = False
_C.MODEL.SWIN.PATCH_NORM = True
_C.TRAIN = CN()
_C.TRAIN.USE_CHECKPOINT = False
_C.FUSED_WINDOW_PROCESS = False
_C.FUSED_LAYERNORM = False


def _update_config_from_file(config, cfg_file):
    with open(cfg_file, "r") as f:
        file_cfg = json.load(f)
    for base in file_cfg.setdefault("BASE", [""]):
        if base:
            _update_config_from_file(config, os.path.join(os.path.dirname(cfg_file), base))
    config.merge(file_cfg)


def _to_cn(value):
    return CN({k: _to_cn(v) for k, v in value.items()}) if isinstance(value, dict) else value


def update_config(config, args):
    _update_config_from_file(config, args.cfg)
    for key, value in zip((args.opts or [])[0::2], (args.opts or [])[1::2]):
        *path, last = key.split(".")
        node = config
        for part in path:
            node = node[part]
        node[last] = type(node[last])(value) if node.get(last) is not None else value


def get_config(args):
    """The defaults, overridden by the config file of `args.cfg`, then by `args.opts`."""
    config = _to_cn(copy.deepcopy(_C))
    update_config(config, args)
    return config
