"""Export Whisper's audio encoder, text decoder and the whole model, tiny dimensions."""

import torch
from model import ModelDimensions, Whisper
from torch.export import Dim

if __name__ == "__main__":
    dims = ModelDimensions(
        n_mels=16,
        n_audio_ctx=32,
        n_audio_state=32,
        n_audio_head=2,
        n_audio_layer=2,
        n_vocab=96,
        n_text_ctx=16,
        n_text_state=32,
        n_text_head=2,
        n_text_layer=2,
    )
    model = Whisper(dims).eval()
    mel = torch.randn(2, dims.n_mels, 2 * dims.n_audio_ctx)
    tokens = torch.randint(0, dims.n_vocab, (2, 8))
    encoder = model.encoder
    torch.export.export(encoder, (mel,))
    # Audio of any length: the encoder's positional embedding has a fixed size.
    torch.export.export(encoder, (mel,), dynamic_shapes=({2: Dim("frames")},))
    audio_features = encoder(mel)
    decoder = model.decoder
    torch.export.export(decoder, (tokens, audio_features), dynamic_shapes=({1: Dim("tokens", max=16)}, None))
    torch.export.export(model, (mel, tokens))
