"""Where torch itself behaves differently from 2.13, what the tests expect instead.

Everything else must come out the same on every version the matrix runs (tools/versions.mk):
same code, same line, same columns.  Each difference names its section of docs/torch-versions.md,
which says what torch does differently (tests/diagnosis/test_torch_versions.py checks the sections exist).
"""

from __future__ import annotations

import functools
import subprocess
import sys
from dataclasses import dataclass, replace

from exportlens.engine import Engine

from .conftest import WORKER_PYTHON
from .realcode_expected import Export, R, Refusal

# (code, text of the culprit on its line, or None: the export call); None: no error at all.
Expected = tuple[str, str | None] | None


@dataclass(frozen=True)
class Difference:
    section: str  # its heading's anchor in docs/torch-versions.md
    module: str
    mode: str  # "strict" | "non-strict"
    since: tuple[int, int]  # the torch versions it holds for, both ends included
    until: tuple[int, int]
    expected: Expected


DIFFERENCES = [
    # 2.10's strict export guards on the value an f-string formats; 2.13+ traces the print.
    Difference(
        "f-string-of-a-tensor-value",
        "PrintItem",
        "strict",
        (2, 10),
        (2, 10),
        ("data-dependent-guard", 'print(f"mean activation {h.mean().item()}")'),
    ),
    # Where dynamo stops on `x + hash(x) % 2`: 2.10 refuses `hash(x)` itself, 2.14+ the `+` that
    # uses its value (2.13: the `%`).
    Difference(
        "where-hash-stops", "HashTensor", "strict", (2, 10), (2, 10), ("observed-exception", "hash(x)")
    ),
    Difference(
        "where-hash-stops",
        "HashTensor",
        "strict",
        (2, 14),
        (2, 99),
        ("observed-exception", "x + hash(x) % 2"),
    ),
    # tests/diagnosis/test_traced_only.py: 2.15's torch.distributions validate with a run-time assert.
    Difference("distributions-validate-at-run-time", "Policy", "non-strict", (2, 15), (2, 99), None),
]


def version_of(engine: Engine) -> tuple[int, int]:
    """The worker's torch, (major, minor)."""
    major, minor = str(engine.info["torch"]).split(".")[:2]
    return int(major), int(minor)


def expected_for(module: str, mode: str, version: tuple[int, int], default: Expected) -> Expected:
    for difference in DIFFERENCES:
        if (difference.module, difference.mode) == (module, mode) and (
            difference.since <= version <= difference.until
        ):
            return difference.expected
    return default


@dataclass(frozen=True)
class CorpusDifference:
    """torch's own verdict on a real-code corpus export where it differs from 2.13's
    (tests/realcode_expected.py holds 2.13's)."""

    section: str
    export: str  # `Export.id`: "case:line of the call"
    mode: str
    since: tuple[int, int]
    until: tuple[int, int]
    truth: Refusal | None


# torch 2.10's export hands the LSTM 4-D states ("For batched 3-D input, hx and cx should also be
# 3-D but got (4-D, 4-D) tensors"; eager runs), before anything 2.13 refuses there.
_LSTM = "h, lstm_state = self.lstm(h.unsqueeze(0)"
_LSTM_ERROR = "RuntimeError: For batched 3-D input, hx and cx should also be 3-D but got (4-D, 4-D) tensors"
_210 = ((2, 10), (2, 10))
CORPUS_DIFFERENCES = [
    *(
        CorpusDifference(
            "real-code-corpus-on-210", call, mode, *_210, R(code, "ppo_atari_lstm.py", _LSTM, why)
        )
        for call in ("cleanrl:40", "cleanrl:41", "cleanrl:43")
        for mode, code, why in (
            ("non-strict", "export-error", _LSTM_ERROR),
            ("strict", "observed-exception", f"Unsupported: Observed exception ({_LSTM_ERROR})"),
        )
    ),
    # An assertion inside torch (no user frame: the export call) with the dynamic batch and frames.
    CorpusDifference(
        "real-code-corpus-on-210",
        "conformer:15",
        "strict",
        *_210,
        R("export-error", "export_conformer.py", "dynamic_shapes=({0: batch, 1: frames}", "AssertionError"),
    ),
    # 2.10's max_pool2d guards each pooling's input even: the fourth pooling is the first line
    # that needs h a multiple of 16 (2.13 pools without a guard; its first need is the torch.cat).
    *(
        CorpusDifference(
            "real-code-corpus-on-210",
            "unet:12",
            mode,
            *_210,
            R(
                "dim-range-narrowed",
                "unet.py",
                "bottleneck = self.bottleneck(self.pool4(enc4))",
                "UserError: Not all values of h satisfy the generated guard (((-2) + (h // 8)) % 2) == 0",
            ),
        )
        for mode in ("non-strict", "strict")
    ),
    # 2.15's torch.distributions validate with a run-time assert when exporting: it exports.
    CorpusDifference(
        "distributions-validate-at-run-time", "cleanrl:40", "non-strict", (2, 15), (2, 99), None
    ),
    # dynamo stops earlier, at the `requires_grad_()` before 2.13's `torch.autograd.grad`.
    CorpusDifference(
        "real-code-corpus-on-210",
        "improved_diffusion:31",
        "strict",
        *_210,
        R(
            "graph-break",
            "improved_diffusion/nn.py",
            "ctx.input_tensors = [x.detach().requires_grad_(True)",
            "Unsupported: Unsupported Tensor.requires_grad_() call",
        ),
    ),
]


@functools.lru_cache(maxsize=1)
def worker_version() -> tuple[int, int]:
    """The worker's torch, read before any engine starts (tests parametrized by it at collection)."""
    python = WORKER_PYTHON or sys.executable
    code = "import torch; print(torch.__version__)"
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout
    major, minor = out.strip().split(".")[:2]
    return int(major), int(minor)


def versioned(export: Export, version: tuple[int, int]) -> Export:
    """`export` with torch's verdicts of `version`; ExportLens's known misses are 2.13's, dropped."""
    found = [d for d in CORPUS_DIFFERENCES if d.export == export.id and d.since <= version <= d.until]
    if not found:
        return export
    truth = {"non-strict": export.non_strict, "strict": export.strict}
    known = dict(export.known)
    for d in found:
        truth[d.mode] = d.truth
        known = {k: v for k, v in known.items() if k[0] != d.mode}  # 2.13's misses: another verdict
    return replace(export, non_strict=truth["non-strict"], strict=truth["strict"], known=known)
