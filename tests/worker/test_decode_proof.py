"""The cache fix's decode-step proof (worker/job/decode_proof.py) refuses a program that exports and
matches on the prompt but forgets the cache before the next token: real torch and transformers (the
worker's), a tiny Llama through the installed wrapper, its exported program called as generation
calls it; the forgetful one has its cache buffers zeroed before each call."""

from __future__ import annotations

from tests.paths import ROOT
from tests.worker_torch import WorkerTorch

SNIPPET = f"""
import sys
sys.path.insert(0, {str(ROOT / "server")!r})
import torch
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM
from exportlens.worker.core.attempt import Attempt
from exportlens.worker.job.decode_proof import decode_matches

torch.manual_seed(0)
config = LlamaConfig(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                     num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
model = LlamaForCausalLM(config).eval()
model.generation_config.cache_implementation = "static"
wrapper = TorchExportableModuleForDecoderOnlyLM(model, batch_size=1, max_cache_len=32)
ids = torch.randint(0, 128, (1, 8))
seq = torch.export.Dim("seq", max=31)
kwargs = {{"input_ids": ids, "cache_position": torch.arange(8)}}
program = wrapper.export(**kwargs, dynamic_shapes={{"input_ids": {{1: seq}}, "cache_position": {{0: seq}}}})
attempt = Attempt(wrapper.model, (), kwargs)


class Forgetful:
    def module(self):
        exported = program.module()
        caches = [b for n, b in exported.named_buffers() if "cache" in n]

        def call(*args, **kw):
            with torch.no_grad():
                for b in caches:
                    b.zero_()
            return exported(*args, **kw)
        return call


kept = {{"exports": True, "matches": True, "branches_checked": 0, "reason": ""}}
decode_matches(program, attempt, kept)
forgot = dict(kept, matches=True, reason="")
forgot.pop("decoded", None)
decode_matches(Forgetful(), attempt, forgot)
result = [kept, forgot]
"""


def test_a_program_that_forgets_its_cache_is_not_proven(worker_torch: WorkerTorch) -> None:
    kept, forgot = worker_torch.run(SNIPPET)
    assert kept["matches"] is True and kept["decoded"] == 8, kept
    assert forgot["matches"] is False and "decoded" not in forgot, forgot
    assert (
        forgot["reason"]
        == "the exported program's decode step (position 8) logits differ from eager generation's"
    )
