"""Codes of an export that passed but whose program does not do what eager does (diagnosis/baked)."""

from __future__ import annotations

from .model import Code, _c

CODES: dict[str, Code] = {
    c.code: c
    for c in (
        # Exported, but the program does not do what eager does (diagnosis/baked).
        _c(
            "side-effect-baked",
            "code in forward runs once, at export time, and is not part of the exported program "
            "(print/logging, a global or `self` attribute changed, a clock/random/`id()` value baked in)",
            "move it out of forward, guard it with `torch.compiler.is_exporting()`, or pass the value in",
            severity="warning",
            tracer="both",
            fixes=("guard-print", "remove"),
        ),
        _c(
            "tensor-attribute-not-buffer",
            "forward assigns a tensor to a `self` attribute that is no registered buffer: the exported "
            "program drops the assignment",
            "`register_buffer` it in `__init__` and update it in place, or return it",
            severity="warning",
            tracer="both",
            fixes=("buffer",),
        ),
        _c(
            "exported-in-training-mode",
            "dropout / batch-norm were exported in training mode",
            "call `.eval()` before exporting, or pass `training=self.training` to the functional call",
            severity="warning",
            tracer="both",
            fixes=("eval",),
        ),
        _c(
            "input-mutated",
            "forward writes into an input tensor in place: the exported program changes the caller's tensor",
            "use an out-of-place op, or work on a `.clone()` of the input",
            severity="warning",
            tracer="both",
        ),
        _c(
            "dim-narrowed-at-runtime",
            "the export passed, but its program checks a shape condition when it runs that rejects sizes"
            " the declared Dims allow (a fixed position table under dynamic H and W)",
            "make the size the line needs part of the spec (a multiple `k * Dim(...)`, or static), or derive"
            " what it depends on from the input's size",
            severity="warning",
            tracer="both",
        ),
        # The prefill exported with a cache; its program refuses the next token (diagnosis/decode_step.py).
        _c(
            "decode-step-refused",
            "a language model exported with a cache (`cache_position` among its inputs) exports, but its"
            " program refuses the decode step: one token at the next cache position, as generation feeds it",
            "a Dim for the sequence on the tokens and `cache_position` (one program for prefill and decode),"
            " or a static cache with room for the tokens generated after the prompt",
            severity="error",
            tracer="both",
        ),
        # Exported here; refused on the path a machine with a GPU takes (diagnosis/gpu_path.py).
        _c(
            "gpu-path-refused",
            "the script asks whether a GPU is there (`torch.cuda.is_available()`); this machine has none"
            " and the module exports, but on the path a GPU machine takes torch refuses it (often inputs"
            " left on the CPU while the model is moved to the GPU)",
            "fix what the message names on the GPU path (`x.to(device)` for the inputs, `device=x.device`"
            " for tensors made in forward), or check with `exportlens.device` `real` on a GPU machine",
            severity="warning",
            tracer="both",
        ),
    )
}
