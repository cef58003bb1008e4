# ExportLens real-code corpus, case `swin`: the model chosen and configured by the config.
# Modelled on microsoft/Swin-Transformer models/build.py @ f82860bfb5225915aca09c3227159ee9e1df874d
# (MIT License, Copyright (c) Microsoft Corporation). Written for this corpus, not a copy: the same
# `build_model(config, is_pretrain=False)` that picks the class from `config.MODEL.TYPE` and passes
# every hyper-parameter from the config; reduced to the `swin` type (the other types' classes are
# not in this corpus), apex's fused LayerNorm left out.
import torch.nn as nn

from .swin_transformer import SwinTransformer


def build_model(config, is_pretrain=False):
    model_type = config.MODEL.TYPE
    layernorm = nn.LayerNorm
    if is_pretrain:
        raise NotImplementedError("SimMIM pre-training is not part of this corpus")
    if model_type == "swin":
        model = SwinTransformer(
            img_size=config.DATA.IMG_SIZE,
            patch_size=config.MODEL.SWIN.PATCH_SIZE,
            in_chans=config.MODEL.SWIN.IN_CHANS,
            num_classes=config.MODEL.NUM_CLASSES,
            embed_dim=config.MODEL.SWIN.EMBED_DIM,
            depths=config.MODEL.SWIN.DEPTHS,
            num_heads=config.MODEL.SWIN.NUM_HEADS,
            window_size=config.MODEL.SWIN.WINDOW_SIZE,
            mlp_ratio=config.MODEL.SWIN.MLP_RATIO,
            qkv_bias=config.MODEL.SWIN.QKV_BIAS,
            qk_scale=config.MODEL.SWIN.QK_SCALE,
            drop_rate=config.MODEL.DROP_RATE,
            drop_path_rate=config.MODEL.DROP_PATH_RATE,
            ape=config.MODEL.SWIN.APE,
            norm_layer=layernorm,
            patch_norm=config.MODEL.SWIN.PATCH_NORM,
            use_checkpoint=config.TRAIN.USE_CHECKPOINT,
            fused_window_process=config.FUSED_WINDOW_PROCESS,
        )
    else:
        raise NotImplementedError(f"Unkown model: {model_type}")
    return model
