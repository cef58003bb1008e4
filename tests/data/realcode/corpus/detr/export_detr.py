"""Export DETR's encoder-decoder transformer on a feature map with its padding mask."""

import torch
from torch.export import Dim
from transformer import Transformer

if __name__ == "__main__":
    model = Transformer(
        d_model=32,
        nhead=2,
        num_encoder_layers=2,
        num_decoder_layers=2,
        dim_feedforward=64,
        dropout=0.0,
        return_intermediate_dec=True,
    ).eval()
    src = torch.randn(2, 32, 8, 10)
    mask = torch.zeros(2, 8, 10, dtype=torch.bool)
    query_embed = torch.randn(5, 32)
    pos_embed = torch.randn(2, 32, 8, 10)
    torch.export.export(model, (src, mask, query_embed, pos_embed))
    b, h, w = Dim("b"), Dim("h"), Dim("w")
    shapes = ({0: b, 2: h, 3: w}, {0: b, 1: h, 2: w}, None, {0: b, 2: h, 3: w})
    torch.export.export(model, (src, mask, query_embed, pos_embed), dynamic_shapes=shapes)
