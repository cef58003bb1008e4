# ExportLens real-code corpus, case `dinov2`: the layers package's public names.
# Modelled on facebookresearch/dinov2 dinov2/layers/__init__.py @ bdf49e520b98d8ff44c68b090cf91485e6ff609c
# (Apache License 2.0, Copyright (c) Meta Platforms, Inc. and affiliates). Written for this corpus.
from .attention import MemEffAttention
from .block import NestedTensorBlock
from .mlp import Mlp
from .patch_embed import PatchEmbed
