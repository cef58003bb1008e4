"""Tiny transformers models from configs (issue 44): one export script per model and shape.

Source: Hugging Face transformers' own model classes (pinned in pyproject.toml; 4.57.3 in
tools/transformers-older.txt), built from small configs with random weights, nothing downloaded.
Each script exports as people write it, `torch.export.export(model, (inputs,))`, static or with a
dynamic batch and, where the input has one, sequence `Dim`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tiny:
    name: str
    build: str  # imports, config, model, example inputs
    args: str  # the export call's positional inputs
    dims: str  # its dynamic_shapes, in the Dims `batch` and `seq`


_TEXT = "ids = torch.randint(0, 128, (2, 8))\n"
_IDS_DIMS = "({0: batch, 1: seq},)"

MODELS = (
    Tiny(
        "gpt2",
        "from transformers import GPT2Config, GPT2Model\n"
        "config = GPT2Config(vocab_size=128, n_positions=64, n_embd=32, n_layer=1, n_head=2)\n"
        "model = GPT2Model(config).eval()\n" + _TEXT,
        "(ids,)",
        _IDS_DIMS,
    ),
    Tiny(
        "bert",
        "from transformers import BertConfig, BertModel\n"
        "config = BertConfig(vocab_size=128, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,\n"
        "                    intermediate_size=64, max_position_embeddings=64)\n"
        "model = BertModel(config).eval()\n" + _TEXT,
        "(ids,)",
        _IDS_DIMS,
    ),
    Tiny(
        "llama",
        "from transformers import LlamaConfig, LlamaModel\n"
        "config = LlamaConfig(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=1,\n"
        "                     num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)\n"
        "model = LlamaModel(config).eval()\n" + _TEXT,
        "(ids,)",
        _IDS_DIMS,
    ),
    Tiny(
        "t5",
        "from transformers import T5Config, T5Model\n"
        "config = T5Config(vocab_size=128, d_model=32, d_kv=16, d_ff=64, num_layers=1, num_heads=2)\n"
        "model = T5Model(config).eval()\n" + _TEXT,
        "(ids, None, ids)",
        "({0: batch, 1: seq}, None, {0: batch, 1: seq})",
    ),
    Tiny(
        "whisper",
        "from transformers import WhisperConfig, WhisperModel\n"
        "config = WhisperConfig(vocab_size=128, num_mel_bins=8, encoder_layers=1, decoder_layers=1,\n"
        "                       encoder_attention_heads=2, decoder_attention_heads=2, d_model=32,\n"
        "                       encoder_ffn_dim=64, decoder_ffn_dim=64, max_source_positions=16,\n"
        "                       max_target_positions=32, pad_token_id=0, bos_token_id=1, eos_token_id=2,\n"
        "                       decoder_start_token_id=1)\n"
        "model = WhisperModel(config).eval()\n"
        "features = torch.randn(2, 8, 32)\n" + _TEXT,
        "(features, None, ids)",
        "({0: batch}, None, {0: batch, 1: seq})",
    ),
    Tiny(
        "vit",
        "from transformers import ViTConfig, ViTModel\n"
        "config = ViTConfig(image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=1,\n"
        "                   num_attention_heads=2, intermediate_size=64)\n"
        "model = ViTModel(config).eval()\n"
        "pixels = torch.randn(2, 3, 32, 32)\n",
        "(pixels,)",
        "({0: batch},)",
    ),
    Tiny(
        "resnet",
        "from transformers import ResNetConfig, ResNetModel\n"
        "config = ResNetConfig(embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1], layer_type='basic')\n"
        "model = ResNetModel(config).eval()\n"
        "pixels = torch.randn(2, 3, 32, 32)\n",
        "(pixels,)",
        "({0: batch},)",
    ),
    Tiny(
        "wav2vec2",
        "from transformers import Wav2Vec2Config, Wav2Vec2Model\n"
        "config = Wav2Vec2Config(hidden_size=32, num_hidden_layers=1, num_attention_heads=2,\n"
        "                        intermediate_size=64, conv_dim=(16, 16), conv_stride=(5, 2),\n"
        "                        conv_kernel=(10, 3), num_conv_pos_embeddings=16,\n"
        "                        num_conv_pos_embedding_groups=2)\n"
        "model = Wav2Vec2Model(config).eval()\n"
        "audio = torch.randn(2, 800)\n",
        "(audio,)",
        '({0: batch, 1: torch.export.Dim("samples", min=400, max=4000)},)',
    ),
    Tiny(
        "mixtral",
        "from transformers import MixtralConfig, MixtralModel\n"
        "config = MixtralConfig(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=1,\n"
        "                       num_attention_heads=4, num_key_value_heads=2, num_local_experts=4,\n"
        "                       num_experts_per_tok=2, max_position_embeddings=64)\n"
        "model = MixtralModel(config).eval()\n" + _TEXT,
        "(ids,)",
        _IDS_DIMS,
    ),
    Tiny(
        "mamba",
        "from transformers import MambaConfig, MambaModel\n"
        "config = MambaConfig(vocab_size=128, hidden_size=32, state_size=8, num_hidden_layers=1,\n"
        "                     expand=2, conv_kernel=4)\n"
        "model = MambaModel(config).eval()\n" + _TEXT,
        "(ids,)",
        _IDS_DIMS,
    ),
)

SHAPES = ("static", "dynamic")
EXPORT_CALL = "program = torch.export.export(model, "


def script(tiny: Tiny, shape: str) -> str:
    """The export script: the model built from its config, then the one export call."""
    head = "import torch\n" + tiny.build
    if shape == "static":
        return head + f"{EXPORT_CALL}{tiny.args})\n"
    dims = 'batch = torch.export.Dim("batch", min=1, max=8)\nseq = torch.export.Dim("seq", min=2, max=32)\n'
    return head + dims + f"{EXPORT_CALL}{tiny.args}, dynamic_shapes={tiny.dims})\n"
