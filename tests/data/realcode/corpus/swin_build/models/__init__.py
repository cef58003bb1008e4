# ExportLens real-code corpus, case `swin`: the models package exposes only its builder.
# Modelled on microsoft/Swin-Transformer models/__init__.py @ f82860bfb5225915aca09c3227159ee9e1df874d
# (MIT License, Copyright (c) Microsoft Corporation).
from .build import build_model
