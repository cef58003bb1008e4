"""What torch does with every export of the real-code corpus, and how to score ExportLens on it.

The corpus (tests/data/realcode/corpus/<case>/) holds one folder per public model: its model
code and the `export_<case>.py` script a user would write. Each `Export` below is one
`torch.export.export(...)` call of such a script, with torch's verdict per tracer: `None` when
torch exports it, else a `Refusal`: the ExportLens code that names torch's refusal
(docs/codes.md) and the culprit line. Every verdict was read by hand from torch's own output
(`bench/realcode_truth.py`: the exception, the innermost frame in the case folder, and for
constraint violations torch's "Suggested fixes" and the `[guard added]` lines it logs) — never
from ExportLens's output.

`known` records where ExportLens is wrong today, as `{(mode, aspect): "<pattern>: <what>"}`;
the tests mark those strict xfails, so each turns into a failure (to delete) the day it is fixed.
Aspects: "flagged" (an error finding on the module), "located" (one on the culprit line),
"code" (one with the right code), "no-false-error" (no error finding on a module torch exports).

Used by tests/realcode/test_realcode_corpus.py and bench/realcode_score.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from exportlens.findings import FileResult, Finding

CORPUS = Path(__file__).parent / "data" / "realcode" / "corpus"
MODES = ("non-strict", "strict")


@dataclass(frozen=True)
class Refusal:
    code: str  # the ExportLens code for torch's refusal
    path: str  # the culprit's file, relative to the case folder
    needle: str  # text of the culprit line (its first line holding it)
    torch: str  # torch's exception, for the record

    def line(self, case: str) -> int:
        """0-based line of the culprit."""
        text = (CORPUS / case / self.path).read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(text):
            if self.needle in line and not line.lstrip().startswith("#"):  # the headers quote code
                return number
        raise AssertionError(f"{self.needle!r} not in {case}/{self.path}")


@dataclass(frozen=True)
class Export:
    case: str
    script: str  # relative to the case folder
    needle: str  # text of the export call's first line in the script
    non_strict: Refusal | None
    strict: Refusal | None
    known: dict[tuple[str, str], str] = field(default_factory=dict)
    module: str = ""  # the target's name, when it is not found by the call's line (a class of the script)
    slow: bool = (
        False  # torch alone takes about a minute: left out of the test suite, in the bench with --slow
    )

    @property
    def id(self) -> str:
        return f"{self.case}:{self.call_line + 1}"

    @property
    def call_line(self) -> int:
        """0-based line of the export call in the script."""
        text = (CORPUS / self.case / self.script).read_text(encoding="utf-8").splitlines()
        matches = [n for n, line in enumerate(text) if self.needle in line]
        assert len(matches) == 1, f"{self.needle!r}: {matches} in {self.case}/{self.script}"
        return matches[0]

    def truth(self, mode: str) -> Refusal | None:
        return self.non_strict if mode == "non-strict" else self.strict


@dataclass
class Score:
    """ExportLens against torch on one export in one tracer."""

    export: Export
    mode: str
    status: str  # ExportLens's module status
    errors: list[Finding]
    flagged: bool | None = None  # refusals only
    located: bool | None = None
    code: bool | None = None
    false_errors: int = 0  # exports only

    def aspects(self) -> dict[str, bool]:
        if self.export.truth(self.mode) is None:
            return {"no-false-error": self.false_errors == 0}
        return {"flagged": bool(self.flagged), "located": bool(self.located), "code": bool(self.code)}


def module_findings(result: FileResult, export: Export) -> tuple[str, list[Finding]]:
    """The status and error findings ExportLens gives the module of this export call."""
    line = export.call_line
    names = {m.name for m in result.modules if m.line == line} or {export.module}
    statuses = [m.status for m in result.modules if m.name in names]
    assert statuses, f"no module for {export.id}: {[(m.name, m.line) for m in result.modules]}"
    errors = [d for d in result.diagnostics if d.module in names and d.severity == "error"]
    return (statuses[0] if statuses else "missing"), errors


def score(result: FileResult, export: Export, mode: str) -> Score:
    status, errors = module_findings(result, export)
    truth = export.truth(mode)
    out = Score(export, mode, status, errors)
    if truth is None:
        out.false_errors = len(errors)
        return out
    culprit = (str((CORPUS / export.case / truth.path).resolve()), truth.line(export.case))
    out.flagged = bool(errors)
    out.located = any((str(Path(d.path).resolve()), d.range.start.line) == culprit for d in errors)
    out.code = any(d.code == truth.code for d in errors)
    return out


def case_files(case: str, slow: bool = False) -> list[str]:
    """Every Python file of a case, as `exportlens check <case folder>` takes them (the scripts of
    slow exports only if `slow`; no `compile_` script: tests/compile/test_compile_realcode.py's)."""
    wanted = {script for name, script in scripts(slow) if name == case}
    return [
        str(p)
        for p in sorted((CORPUS / case).rglob("*.py"))
        if not p.name.startswith(("export_", "compile_")) or str(p.relative_to(CORPUS / case)) in wanted
    ]


# A finding that says ExportLens could not check a class, or checked it on a guess.
NOT_CHECKED = ("no-example-inputs", "guessed-inputs-failed")


def covered_lines(results: list[FileResult], case: str) -> list[tuple[str, str, str]]:
    """(file, class, code) of each `no-example-inputs` / `guessed-inputs-failed` line on a class the
    case's export calls export or build their module from (tests/realcode_classes.py: what the
    scripts build, never what ExportLens says), once each."""
    from tests.realcode_classes import exported_classes

    folder = (CORPUS / case).resolve()
    covered = exported_classes(folder)
    found = {
        (str(Path(d.path).resolve().relative_to(folder)), d.module or "", d.code)
        for result in results
        for d in result.diagnostics
        if d.code in NOT_CHECKED and Path(d.path).resolve().is_relative_to(folder)
    }
    return sorted(line for line in found if line[:2] in covered)


def scripts(slow: bool = False) -> list[tuple[str, str]]:
    """(case, script) of every export script in EXPORTS, in order (those of slow exports if `slow`)."""
    return list(dict.fromkeys((e.case, e.script) for e in EXPORTS if slow or not e.slow))


def R(code: str, path: str, needle: str, torch: str) -> Refusal:
    return Refusal(code, path, needle, torch)


# Torch's refusals, by the words of its messages (read in bench/realcode_truth.py's output):
DATA_BRANCH = "GuardOnDataDependentSymNode: Could not guard on data-dependent expression Eq(u0, 1)"
INT_OF_ITEM = "GuardOnDataDependentSymNode: Could not extract specialized integer from data-dependent u0"
SPECIALIZED = "UserError: Constraints violated: ... specialized it to be a constant"

EXPORTS: list[Export] = [
    # --- cifar: a package of CNNs star-imported by models/__init__.py
    Export(
        "cifar",
        "export_cifar.py",
        "torch.export.export(ResNet18().eval(), (images,), dynamic_shapes=({0: batch},))",
        None,
        None,
    ),
    Export("cifar", "export_cifar.py", "ShuffleNetV2(net_size=0.5)", None, None),
    Export(
        "cifar",
        "export_cifar.py",
        '2: Dim("h"), 3: Dim("w")',
        # The Linear sized for 32x32 ties h and w to a range (17..48 after the pooling): torch's
        # solver cannot even state it. Guards logged at the view that feeds the Linear.
        R(
            "dim-range-narrowed",
            "models/resnet.py",
            "out = out.view(out.size(0), -1)",
            "NotImplementedError: The inequality, Eq(512*(((x/8)//4)) - 512, 0), cannot be solved",
        ),
        R(
            "dim-range-narrowed",
            "models/resnet.py",
            "out = out.view(out.size(0), -1)",
            "NotImplementedError: The inequality, Eq(512*(((x/8)//4)) - 512, 0), cannot be solved",
        ),
    ),
    # --- cleanrl: the recurrent PPO agent, wrapped by the script (the agent has no forward)
    Export(
        "cleanrl",
        "export_cleanrl.py",
        "torch.export.export(Policy(agent)",
        # torch.distributions validates its arguments' values (`if not valid.all()`) in __init__.
        R("data-dependent-branch", "ppo_atari_lstm.py", "probs = Categorical(logits=logits)", DATA_BRANCH),
        R(
            "untraceable-call",
            "ppo_atari_lstm.py",
            "probs = Categorical(logits=logits)",
            "Unsupported: Attempted to call function marked as skipped (constraints.is_dependent)",
        ),
        module="Policy",
    ),
    Export(
        "cleanrl",
        "export_cleanrl.py",
        "torch.export.export(Value(agent), (x, h, c, done))",
        None,
        None,
        module="Value",
    ),
    Export(
        "cleanrl",
        "export_cleanrl.py",
        "dynamic_shapes=({0: rows}",
        # The Python loop over the time steps unrolls them: `rows` (steps x envs) becomes 6.
        R(
            "dim-specialized",
            "ppo_atari_lstm.py",
            "for h, d in zip(hidden, done):",
            SPECIALIZED + " (suggested: rows = 6)",
        ),
        R(
            "dim-specialized",
            "ppo_atari_lstm.py",
            "for h, d in zip(hidden, done):",
            SPECIALIZED + " (suggested: rows = 6)",
        ),
    ),
    # --- conformer: torchaudio's speech encoder, lengths -> padding mask with int(max().item())
    Export(
        "conformer",
        "export_conformer.py",
        "torch.export.export(model, (features, lengths))",
        R(
            "tensor-to-python-scalar",
            "conformer.py",
            "max_length = int(torch.max(lengths).item())",
            INT_OF_ITEM,
        ),
        None,
    ),
    Export(
        "conformer",
        "export_conformer.py",
        "dynamic_shapes=({0: batch, 1: frames}",
        R(
            "tensor-to-python-scalar",
            "conformer.py",
            "max_length = int(torch.max(lengths).item())",
            INT_OF_ITEM,
        ),
        None,
    ),
    # --- ddim: the DDPM U-Net with `assert x.shape[2] == x.shape[3] == self.resolution`
    Export("ddim", "export_ddim.py", "torch.export.export(model, (x, t))", None, None),
    Export("ddim", "export_ddim.py", "dynamic_shapes=({0: batch}, {0: batch}))", None, None),
    Export(
        "ddim",
        "export_ddim.py",
        'Dim("size")',
        R(
            "dim-specialized",
            "diffusion.py",
            "assert x.shape[2] == x.shape[3] == self.resolution",
            SPECIALIZED + " (16)",
        ),
        R(
            "dim-specialized",
            "diffusion.py",
            "assert x.shape[2] == x.shape[3] == self.resolution",
            SPECIALIZED + " (16)",
        ),
    ),
    # --- detr: the detection transformer, padding mask into nn.MultiheadAttention
    Export(
        "detr",
        "export_detr.py",
        "torch.export.export(model, (src, mask, query_embed, pos_embed))",
        None,
        None,
    ),
    Export("detr", "export_detr.py", "dynamic_shapes=shapes", None, None),
    # --- improved_diffusion: a package with relative imports; gradient checkpointing
    Export(
        "improved_diffusion",
        "export_improved_diffusion.py",
        "torch.export.export(model, (x, timesteps, y))",
        None,
        None,
    ),
    Export(
        "improved_diffusion",
        "export_improved_diffusion.py",
        "torch.export.export(model, (x, timesteps, y), dyn",
        None,
        None,
    ),
    Export(
        "improved_diffusion",
        "export_improved_diffusion.py",
        "torch.export.export(trained",
        None,
        # dynamo traces the custom autograd.Function's backward too: torch.autograd.grad there.
        R(
            "graph-break",
            "improved_diffusion/nn.py",
            "input_grads = th.autograd.grad(",
            "Unsupported: using `torch.autograd.grad` with `torch._dynamo.config.trace_autograd_ops=False`",
        ),
    ),
    Export("improved_diffusion", "export_improved_diffusion.py", "torch.export.export(sr,", None, None),
    # --- llama2c: RoPE tables sliced [:seqlen]
    Export("llama2c", "export_llama2c.py", "torch.export.export(model, (tokens,))", None, None),
    Export(
        "llama2c",
        "export_llama2c.py",
        '{1: Dim("seq")}',
        R(
            "dim-range-narrowed",
            "model.py",
            "freqs_cos = self.freqs_cos[:seqlen]",
            "UserError: Not all values of seq satisfy the generated guard seq <= 64 (suggested: max=64)",
        ),
        R(
            "dim-range-narrowed",
            "model.py",
            "freqs_cos = self.freqs_cos[:seqlen]",
            "UserError: Not all values of seq satisfy the generated guard seq <= 64 (suggested: max=64)",
        ),
    ),
    Export("llama2c", "export_llama2c.py", "max=args.max_seq_len", None, None),
    # --- mingpt: a package (mingpt.model imports mingpt.utils) and a separate script
    Export("mingpt", "export_mingpt.py", "torch.export.export(model, (idx,))", None, None),
    Export(
        "mingpt",
        "export_mingpt.py",
        "dynamic_shapes=",
        # At T == block_size the mask slice is contiguous: torch guards T != 32, outside max=32.
        R(
            "dim-range-narrowed",
            "mingpt/model.py",
            "att = att.masked_fill(self.bias[:, :, :T, :T] == 0",
            "UserError: Not all values of seq in the range seq <= 32 satisfy the generated guard seq != 32",
        ),
        R(
            "dim-range-narrowed",
            "mingpt/model.py",
            "att = att.masked_fill(self.bias[:, :, :T, :T] == 0",
            "UserError: Not all values of seq in the range seq <= 32 satisfy the generated guard seq != 32",
        ),
    ),
    # --- moe: Mixtral's routing with torch.where (data-dependent sizes) exports
    Export("moe", "export_moe.py", "torch.export.export(layer.eval(), (tokens,))", None, None),
    Export("moe", "export_moe.py", 'Dim("tokens")', None, None),
    # --- nanogpt: `assert t <= block_size`
    Export("nanogpt", "export_nanogpt.py", "torch.export.export(model, (idx,))", None, None),
    Export(
        "nanogpt",
        "export_nanogpt.py",
        '1: Dim("seq")}',
        R(
            "dim-range-narrowed",
            "model.py",
            "assert t <= self.config.block_size",
            "UserError: Not all values of seq satisfy the generated guard seq <= 64 (suggested: max=64)",
        ),
        R(
            "dim-range-narrowed",
            "model.py",
            "assert t <= self.config.block_size",
            "UserError: Not all values of seq satisfy the generated guard seq <= 64 (suggested: max=64)",
        ),
    ),
    Export("nanogpt", "export_nanogpt.py", "1: seq}", None, None),
    # --- sam: the windowed ViT image encoder of a package whose __init__ imports it
    Export("sam", "export_sam.py", "torch.export.export(encoder, (image,))", None, None),
    Export(
        "sam",
        "export_sam.py",
        "torch.export.export(encoder, (image,), dynamic_shapes=({0:",
        # One image, a dynamic batch: torch specialises the example's size 1.
        R(
            "dim-example-too-small",
            "export_sam.py",
            "torch.export.export(encoder, (image,), dynamic_shapes=({0:",
            SPECIALIZED + " (1) (suggested: batch = 1)",
        ),
        R(
            "dim-example-too-small",
            "export_sam.py",
            "torch.export.export(encoder, (image,), dynamic_shapes=({0:",
            SPECIALIZED + " (1) (suggested: batch = 1)",
        ),
    ),
    Export("sam", "export_sam.py", "torch.export.export(encoder, (images,)", None, None),
    Export(
        "sam",
        "export_sam_any_size.py",
        '{2: Dim("h"), 3: Dim("w")}',
        # The absolute position embedding is sized for 64x64: (h // 8) == 8; strict names the
        # guards, non-strict's solver may fail on them first. Slow: torch alone takes ~60 s.
        R(
            "dim-range-narrowed",
            "segment_anything/modeling/image_encoder.py",
            "x = x + self.pos_embed",
            "NotImplementedError: Unable to determine the domain of the given function",
        ),
        R(
            "dim-range-narrowed",
            "segment_anything/modeling/image_encoder.py",
            "x = x + self.pos_embed",
            "UserError: Not all values of h satisfy the generated guard (h // 8) == 8",
        ),
        slow=True,
    ),
    # --- td3: plain MLP actor and critic, dynamic batch
    Export("td3", "export_td3.py", "torch.export.export(actor", None, None),
    Export("td3", "export_td3.py", "torch.export.export(critic", None, None),
    # --- unet: four poolings and skip connections
    Export("unet", "export_unet.py", "torch.export.export(model, (image,))", None, None),
    Export(
        "unet",
        "export_unet.py",
        '{2: Dim("h"), 3: Dim("w")}',
        # The skip connections need h and w multiples of 16 (first guard at the first torch.cat).
        R(
            "dim-range-narrowed",
            "unet.py",
            "dec4 = torch.cat((dec4, enc4), dim=1)",
            "UserError: Not all values of h satisfy the generated guard (h // 8) == (2*(h // 16)) ...",
        ),
        R(
            "dim-range-narrowed",
            "unet.py",
            "dec4 = torch.cat((dec4, enc4), dim=1)",
            "UserError: Not all values of h satisfy the generated guard (h // 8) == (2*(h // 16)) ...",
        ),
    ),
    Export("unet", "export_unet.py", '16 * Dim("h16")', None, None),
    Export(
        "unet",
        "export_unet.py",
        'dynamic_shapes=({0: Dim("batch")},))',
        R(
            "dim-example-too-small",
            "export_unet.py",
            'dynamic_shapes=({0: Dim("batch")},))',
            SPECIALIZED + " (1) (suggested: batch = 1)",
        ),
        R(
            "dim-example-too-small",
            "export_unet.py",
            'dynamic_shapes=({0: Dim("batch")},))',
            SPECIALIZED + " (1) (suggested: batch = 1)",
        ),
    ),
    # --- whisper: encoder, decoder, whole model
    Export("whisper", "export_whisper.py", "torch.export.export(encoder, (mel,))", None, None),
    Export(
        "whisper",
        "export_whisper.py",
        'Dim("frames")',
        # The encoder accepts exactly 2 * n_audio_ctx frames: torch's fix is `frames = 64`.
        R(
            "dim-specialized",
            "model.py",
            "assert x.shape[1:] == self.positional_embedding.shape",
            "UserError: Specializations unexpectedly required (frames): specialized value of 64",
        ),
        R(
            "dim-specialized",
            "model.py",
            "assert x.shape[1:] == self.positional_embedding.shape",
            "UserError: Specializations unexpectedly required (frames): specialized value of 64",
        ),
    ),
    Export(
        "whisper",
        "export_whisper.py",
        "torch.export.export(decoder",
        # `is_causal=mask is not None and n_ctx > 1` is a SymBool under the tokens Dim.
        R(
            "raised-only-when-traced",
            "model.py",
            "is_causal=mask is not None and n_ctx > 1",
            "TypeError: scaled_dot_product_attention(): argument 'is_causal' must be bool, not SymBool",
        ),
        R(
            "raised-only-when-traced",
            "model.py",
            "is_causal=mask is not None and n_ctx > 1",
            "Unsupported: TypeError when making fake tensor call (is_causal got a SymBool)",
        ),
    ),
    Export("whisper", "export_whisper.py", "torch.export.export(model, (mel, tokens))", None, None),
    # --- word_lm: LSTM / GRU language models and the nn.Transformer variant (see also the end)
    Export("word_lm", "export_word_lm.py", "torch.export.export(lstm, (data, hidden))", None, None),
    Export(
        "word_lm",
        "export_word_lm.py",
        "torch.export.export(lstm, (data, hidden), dynamic_shapes",
        # torch's LSTM decomposition unrolls the time steps: the sequence length becomes 5.
        R("dim-specialized", "model.py", "output, hidden = self.rnn(emb, hidden)", SPECIALIZED + " (5)"),
        R("dim-specialized", "model.py", "output, hidden = self.rnn(emb, hidden)", SPECIALIZED + " (5)"),
    ),
    Export(
        "word_lm",
        "export_word_lm.py",
        "torch.export.export(gru,",
        R("dim-specialized", "model.py", "output, hidden = self.rnn(emb, hidden)", SPECIALIZED + " (5)"),
        R("dim-specialized", "model.py", "output, hidden = self.rnn(emb, hidden)", SPECIALIZED + " (5)"),
    ),
    Export(
        "word_lm",
        "export_word_lm.py",
        "torch.export.export(transformer",
        # nn.TransformerEncoder compares the mask with a causal one (torch.equal): a value branch.
        R("data-dependent-branch", "model.py", "output = self.encoder(src, mask=self.src_mask)", DATA_BRANCH),
        R(
            "data-dependent-branch",
            "model.py",
            "output = self.encoder(src, mask=self.src_mask)",
            "UserError: Could not guard on data-dependent expression Eq(u0, 1)",
        ),
    ),
    # --- issue 26 items 2 and 9: what exports here, quietly narrowed or only refused elsewhere
    # yolov3: `load_model` picks cuda if torch.cuda.is_available(); the images stay on the CPU. Here
    # (no GPU) both tracers export it.
    Export("yolov3", "export_yolov3.py", "torch.export.export(model, (images,))", None, None),
    # clip: the ViT's positional table fits 64x64 images; with Dims on h and w torch exports it and
    # keeps `(h//32)*(w//32) + 1 == 5` as a check of the inputs.
    Export("clip", "export_clip.py", "torch.export.export(visual, (images,))", None, None),
    Export("clip", "export_clip.py", "dynamic_shapes=(sides,)", None, None),
    # mingpt without .eval(): exports, its dropouts (built in the package's submodules) stay random.
    Export("mingpt", "export_mingpt_training.py", "torch.export.export(model, (idx,))", None, None),
]

# --- issue 26, items 3 and 4: Dims on the image sides of vision models; a dataclass output
EXPORTS += [
    # dinov2: the ViT's patch embedding asserts multiples of the patch size; the position table
    # is used as is when `npatch == N and w == h`, else interpolated by a factor from the size.
    Export("dinov2", "export_dinov2.py", "torch.export.export(model, (images,))", None, None),
    Export(
        "dinov2",
        "export_dinov2.py",
        'Dim("h"), 3: Dim("w")',
        # A square example takes the `npatch == N and w == h` branch: h == w and 16 patches, so 56.
        R(
            "dim-specialized",
            "dinov2/models/vision_transformer.py",
            "if npatch == N and w == h:",
            "UserError: Constraints violated (h, w): w and h must be equal; h specialized to 56",
        ),
        R(
            "dim-specialized",
            "dinov2/models/vision_transformer.py",
            "if npatch == N and w == h:",
            "UserError: Constraints violated (h, w): w and h must be equal; h specialized to 56",
        ),
    ),
    Export(
        "dinov2",
        "export_dinov2.py",
        'Dim("height"), 3: Dim("width")',
        R(
            "dim-range-narrowed",
            "dinov2/layers/patch_embed.py",
            "assert H % patch_H == 0",
            "UserError: Not all values of height satisfy (height % 14) == 0 (suggested: height = 14*_height;"
            " width = 14*_width)",
        ),
        R(
            "dim-range-narrowed",
            "dinov2/layers/patch_embed.py",
            "assert H % patch_H == 0",
            "UserError: Not all values of height satisfy (height % 14) == 0 (suggested: height = 14*_height;"
            " width = 14*_width)",
        ),
    ),
    Export("dinov2", "export_dinov2.py", "dynamic_shapes=((patches,),)", None, None),
    # basicsr: the x2 RRDBNet pixel-unshuffles first, which asserts even sides.
    Export("basicsr", "export_basicsr.py", "torch.export.export(model, (low_res,))", None, None),
    Export(
        "basicsr",
        "export_basicsr.py",
        'torch.export.export(model, (low_res,), dynamic_shapes=({2: Dim("h")',
        R(
            "dim-range-narrowed",
            "basicsr/archs/arch_util.py",
            "assert hh % scale == 0 and hw % scale == 0",
            "UserError: Not all values of h satisfy (h % 2) == 0 (suggested: h = 2*_h; w = 2*_w)",
        ),
        R(
            "dim-range-narrowed",
            "basicsr/archs/arch_util.py",
            "assert hh % scale == 0 and hw % scale == 0",
            "UserError: Not all values of h satisfy (h % 2) == 0 (suggested: h = 2*_h; w = 2*_w)",
        ),
    ),
    Export("basicsr", "export_basicsr.py", '2 * Dim("h2"', None, None),
    Export("basicsr", "export_basicsr.py", "torch.export.export(x4,", None, None),
    # efficientnet: TensorFlow's SAME padding from `math.ceil(ih / sh)`; torch proves the padding
    # test for no plain Dim (every size passes it), for multiples of the stride it does.
    Export(
        "efficientnet",
        "export_efficientnet.py",
        'Dim("h"), 3: Dim("w")',
        R(
            "dim-range-narrowed",
            "efficientnet_pytorch/utils.py",
            "if pad_h > 0 or pad_w > 0:",
            "UserError: Not all values of h satisfy max(0, 1 - h + 2*math.ceil(h / 2)) > 0 (no fix)",
        ),
        R(
            "dim-range-narrowed",
            "efficientnet_pytorch/utils.py",
            "if pad_h > 0 or pad_w > 0:",
            "UserError: Not all values of h satisfy max(0, 1 - h + 2*math.ceil(h / 2)) > 0 (no fix)",
        ),
    ),
    Export("efficientnet", "export_efficientnet.py", '2 * Dim("h2"', None, None),
    # cryoet: the detector returns a plain @dataclass, which torch cannot flatten.
    Export(
        "cryoet",
        "export_cryoet.py",
        "torch.export.export(model, (volume,))",
        R(
            "unflattenable-output",
            "cryoet/modelling/detection/unet3d_detection.py",
            "return ObjectDetectionOutput(",
            "RuntimeError: Found <class '...ObjectDetectionOutput'> in output, which is not a known type",
        ),
        R(
            "unflattenable-output",
            "cryoet/modelling/detection/unet3d_detection.py",
            "return ObjectDetectionOutput(",
            "AssertionError: Encountered unrecognized type UserDefinedObjectVariable(ObjectDetectionOutput)"
            " at output 0",
        ),
    ),
]

# --- issue 26 items 6 and 8: the search for later failures, slow models under the default limit
EXPORTS += [
    # pygat: graph attention, dense and sparse; the sparse layer asserts `not torch.isnan(...)` after
    # each step. With its first assert fixed by hand torch stops at the next (layers.py 100, 104,
    # 106, then exports non-strict; strict stops at `torch.sparse_coo_tensor`, layers.py 51, after
    # 100): tests/realcode/test_realcode_later_failures.py checks the search finds exactly those.
    Export("pygat", "export_pygat.py", "torch.export.export(dense, (x, adj))", None, None),
    Export(
        "pygat",
        "export_pygat.py",
        "torch.export.export(sparse, (x, adj))",
        R("tensor-assert", "layers.py", "assert not torch.isnan(h).any()", DATA_BRANCH),
        R(
            "tensor-assert",
            "layers.py",
            "assert not torch.isnan(h).any()",
            "Unsupported: Data-dependent branching (an `assert not ...`)",
        ),
    ),
    # retinanet: maskrcnn-benchmark's post-processing; a 2-D boolean mask (line 46) before the
    # `.item()` branch torch refuses. With the branch fixed by hand (either way) torch exports.
    Export(
        "retinanet",
        "export_retinanet.py",
        "torch.export.export(Detections()",
        R(
            "data-dependent-guard",
            "inference.py",
            "if per_candidate_inds.sum().item() > per_pre_nms_top_n.item():",
            "GuardOnDataDependentSymNode: Could not guard on data-dependent expression u1 > u2",
        ),
        R(
            "data-dependent-guard",
            "inference.py",
            "if per_candidate_inds.sum().item() > per_pre_nms_top_n.item():",
            "UserError: Consider annotating your code using torch._check*(). ... u1 > u2",
        ),
        module="Detections",
    ),
    # swin: Swin-T, several seconds per export (item 8: tests/realcode/test_realcode_slow_model.py
    # runs it under the default time limit). `window_reverse` makes a dynamic batch a Python int.
    Export("swin", "export_swin.py", "torch.export.export(model, (images,))", None, None),
    Export(
        "swin",
        "export_swin.py",
        'dynamic_shapes=({0: Dim("batch")},)',
        R(
            "dim-specialized",
            "swin_transformer.py",
            "B = int(windows.shape[0] / (H * W / window_size / window_size))",
            SPECIALIZED + " (2) (suggested: batch = 2)",
        ),
        # strict traces the int() as TruncToInt and logs its guards at the views that use B
        # (line 196 first); the int() is the line to change.
        R(
            "dim-range-narrowed",
            "swin_transformer.py",
            "B = int(windows.shape[0] / (H * W / window_size / window_size))",
            "UserError: Not all values of batch satisfy the generated guard ... TruncToInt(64*batch/64.0)",
        ),
    ),
]

# --- issue 26 item 1: which class an export exports (a `.to(device)` script, a factory, a config)
EXPORTS += [
    # --- word_lm, as pytorch/examples' main.py builds it: `model = model.TransformerModel(...).to(device)`
    #     at the script's top level, in one branch of an `if` (the other builds an RNNModel)
    Export(
        "word_lm",
        "export_word_lm_main.py",
        "torch.export.export(model, (data,))",
        R("data-dependent-branch", "model.py", "output = self.encoder(src, mask=self.src_mask)", DATA_BRANCH),
        R(
            "data-dependent-branch",
            "model.py",
            "output = self.encoder(src, mask=self.src_mask)",
            "UserError: Could not guard on data-dependent expression Eq(u0, 1)",
        ),
    ),
    # --- efficientnet_factory: `EfficientNet.from_name(...)` (a classmethod returning `cls(...)`), a
    #     package whose utils.py holds the helper layers
    Export(
        "efficientnet_factory", "export_efficientnet.py", "torch.export.export(model, (images,))", None, None
    ),
    Export("efficientnet_factory", "export_efficientnet.py", 'Dim("batch")', None, None),
    # --- swin_build: `build_model(get_config(args))`, the class picked by the config's MODEL.TYPE
    Export("swin_build", "export_swin.py", "torch.export.export(model, (images,))", None, None),
    Export(
        "swin_build",
        "export_swin.py",
        'Dim("batch")',
        # `B = int(windows.shape[0] / (H * W / ws / ws))` makes the batch a float, then an int: the
        # non-strict tracer specialises it to 2 there. Strict keeps it as `math.trunc(...)` in every
        # guard it prints and logs them at the views that use B (lines 43, 152); the line the user
        # changes (`B = windows.shape[0] // (H * W // ws // ws)`) is the int(), as in `swin`.
        R("dim-specialized", "models/swin_transformer.py", "B = int(windows.shape[0]", SPECIALIZED + " (2)"),
        R(
            "dim-range-narrowed",
            "models/swin_transformer.py",
            "B = int(windows.shape[0]",
            "UserError: Not all values of batch satisfy the generated guard"
            " (4096*batch) % (256*math.trunc(...)) == 0",
        ),
    ),
]

# Model files checked on their own (`exportlens check model.py`): ExportLens builds the modules it
# can (here only inferred inputs), torch exports those on the same inputs (bench/realcode_truth.py
# builds them the plain Python way). No error finding in any model file; these modules exported:
MODEL_EXPORTS: dict[tuple[str, str], list[str]] = {
    ("sam", "segment_anything/modeling/image_encoder.py"): ["PatchEmbed"],
}
# Where ExportLens is wrong today: {(case, file, module or ""): "<pattern>: <what>"}.
# (checking image_encoder.py alone once raised ImportError here: ExportLens ran the file before its
# package, whose __init__ imports it back; fixed in f4102cb.)
MODEL_KNOWN: dict[tuple[str, str, str], str] = {}


def model_files() -> list[tuple[str, str]]:
    """(case, file) of every model file of the corpus (not the export scripts, not __init__.py)."""
    return [
        (path.relative_to(CORPUS).parts[0], str(path.relative_to(CORPUS / path.relative_to(CORPUS).parts[0])))
        for path in sorted(CORPUS.rglob("*.py"))
        if not path.name.startswith(("export_", "compile_")) and path.name != "__init__.py"
    ]


# Where ExportLens is wrong today (measured on torch 2.13.0), by pattern. Keyed by Export.id.
KNOWN: dict[str, dict[tuple[str, str], str]] = {
    "sam:22": {  # slow: bench only
        **{
            (
                mode,
                aspect,
            ): "slow-export-timeout: torch itself needs ~60 s on the windowed ViT with dynamic h/w;"
            " export-timeout on the call (a warning: the check ran out of time), not an error on the"
            " position-embedding add"
            for mode in MODES
            for aspect in ("flagged", "located", "code")
        },
        # Non-strict within the limit (an idle machine): dim-range-narrowed, on PatchEmbed's conv.
    },
}
for _export in EXPORTS:
    _export.known.update(KNOWN.get(_export.id, {}))

# Cases where a class an export covers still gets a `no-example-inputs` / `guessed-inputs-failed`
# line today: {case: "<pattern>: <what>"} (test_no_guess_on_an_exported_class's strict xfails).
COVERED_KNOWN: dict[str, str] = {}
