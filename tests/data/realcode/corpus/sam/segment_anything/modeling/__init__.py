# ExportLens real-code corpus, case `sam`: the modeling package's exports.
# Modelled on facebookresearch/segment-anything segment_anything/modeling/__init__.py @
# dca509fe793f601edb92606367a655c15ac00fdf (Apache License 2.0, Copyright (c) Meta Platforms, Inc.
# and affiliates), reduced to the image encoder this corpus holds. Written for this corpus.
from .image_encoder import ImageEncoderViT

__all__ = ["ImageEncoderViT"]
