"""The quick-fix kinds each code declares (`Code.fixes`) are the ones fixes/ offers for it: checked on
the source of fixes/ (every kind written there is declared) and by asking `fixes_for` on one file
for every code that declares a kind (what it offers is declared, and every declared kind is offered)."""

from __future__ import annotations

import ast

import pytest

from exportlens.codes import CODES, FIX_ONLY
from exportlens.document import Document
from exportlens.fixes import fixes_for
from tests.paths import ROOT


def buffer(text: str) -> Document:
    """The buffer a fix is computed on (nothing is read from its path)."""
    return Document("/fixes/model.py", text)


FIXES = ROOT / "server" / "exportlens" / "fixes"

MODEL = """import torch
from dataclasses import dataclass
from torch import nn


@dataclass
class Out:
    y: torch.Tensor


class M(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.drop = nn.Dropout(0.5)

    def forward(self, x, y):
        print("shape", x.shape)
        self.last = x * 2
        if x.max().item() > 0:
            return Out(x.reshape(8, 16) * y)
        return Out(self.drop(x))


class Sign(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x + 1
        return x - 1


class Bare(nn.Module):
    def forward(self, x):
        return x + 1


class Lm(nn.Module):
    def forward(self, input_ids):
        return input_ids + 1


if __name__ == "__main__":
    bx, by = torch.export.Dim("bx"), torch.export.Dim("by")
    torch.export.export(
        M(), (torch.randn(1, 16), torch.randn(8, 16)), dynamic_shapes={"x": {0: bx}, "y": {0: by}}
    )
    lm_program = torch.export.export(Lm(), (torch.randint(0, 8, (1, 4)),))
    hf = M()
    hf.gradient_checkpointing_enable()
    fast = torch.compile(hf)
    fast(torch.randn(1, 16), torch.randn(8, 16))
"""


def line(text: str) -> int:
    return next(i for i, source_line in enumerate(MODEL.splitlines()) if text in source_line)


# A break inside a library's logging call, on the user's call of the compiled model (diagnosis/compiled.py)
LIBRARY_LOGGING = {
    "library": ["/venv/site-packages/transformers/utils/generic.py", 1189],
    "logger_method": "info",
}

# A causal LM's returned cache, with the wrapper the installed transformers defines (diagnosis/outputs.py)
CACHE = {
    "class": "DynamicCache",
    "library": "transformers",
    "wrapper": {
        "name": "TorchExportableModuleForDecoderOnlyLM",
        "arguments": ["batch_size", "max_cache_len"],
        "export": ["input_ids", "cache_position", "dynamic_shapes"],
        "requires": [["cache_implementation", '"static"']],
    },
}

DYNAMIC_SHAPE = {"gb_id": "gb0036", "gb_type": "Dynamic shape operator"}  # `x[mask]`, `nonzero`

# (code, line, the finding's `fix` data, module): one finding per code that has quick-fixes.
FINDINGS = [
    ("data-dependent-branch", line("if x.max()"), {}, "M"),
    ("data-dependent-branch", line("if x.sum()"), {}, "Sign"),
    ("data-dependent-guard", line("if x.max()"), {}, "M"),
    ("data-dependent-guard", line("if x.sum()"), {}, "Sign"),
    ("dim-specialized", line("x.reshape"), {"suggested": ["bx = 8"]}, "M"),
    ("dim-static-partner", line("x.reshape"), {"suggested": ["by = bx"]}, "M"),
    ("dim-range-narrowed", line("x.reshape"), {"suggested": ["bx = Dim('bx', max=16)"]}, "M"),
    ("dims-must-be-equal", line("x.reshape"), {"suggested": ["by = bx"]}, "M"),
    ("example-outside-dim-range", line("x.reshape"), {"suggested": ["bx = Dim('bx', max=16)"]}, "M"),
    ("dim-example-too-small", line("torch.export.export("), {"dim": "bx"}, "M"),
    ("exported-in-training-mode", line("self.drop(x)"), {"kind": "call-eval"}, "M"),
    ("side-effect-baked", line("print("), {"kind": "guard-not-exporting", "name": "print"}, "M"),
    ("tensor-attribute-not-buffer", line("self.last"), {"name": "last"}, "M"),
    ("no-example-inputs", line("class Bare"), {}, "Bare"),
    ("unflattenable-output", line("return Out(x"), {"class": "Out"}, "M"),
    ("unflattenable-output", line("torch.export.export(Lm()"), CACHE, "Lm"),
    ("compile-graph-break", line("print("), {}, "M"),
    ("compile-graph-break", line("if x.sum()"), {}, "Sign"),
    ("compile-graph-break", line("if x.max()"), {}, "M"),
    ("compile-graph-break-fullgraph", line("print("), {}, "M"),
    ("compile-graph-break-fullgraph", line("if x.sum()"), {}, "Sign"),
    ("compile-graph-break-fullgraph", line("if x.max()"), {}, "M"),
    ("compile-graph-break", line("torch.export.export("), LIBRARY_LOGGING, "M"),
    ("compile-graph-break", line("x.reshape"), DYNAMIC_SHAPE, "M"),
    ("compile-graph-break-fullgraph", line("x.reshape"), DYNAMIC_SHAPE, "M"),
    ("compile-graph-break-fullgraph", line("torch.export.export("), LIBRARY_LOGGING, "M"),
    # transformers' own configuration (`use_cache=False`) for a checkpointed model's compiled call
    ("compile-graph-break", line("fast(torch.randn"), LIBRARY_LOGGING, "M"),
    ("compile-graph-break-fullgraph", line("fast(torch.randn"), LIBRARY_LOGGING, "M"),
]


def kinds_written_in_fixes() -> set[str]:
    """The `kind` (third) argument of every `Fix(...)` / `refused(...)` in fixes/ (but `refused`'s own)."""
    kinds: set[str] = set()
    for path in sorted(set(FIXES.glob("*.py")) - {FIXES / "model.py"}):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("Fix", "refused"):
                kind = node.args[2] if len(node.args) > 2 else None
                assert isinstance(kind, ast.Constant), f"{path.name}:{node.lineno}: a kind built at run time"
                kinds.add(str(kind.value))
    return kinds


def test_every_fix_kind_of_fixes_is_declared_by_a_code_and_every_declared_one_exists() -> None:
    declared = {k for entry in CODES.values() for k in entry.fixes} | {
        k for ks in FIX_ONLY.values() for k in ks
    }
    assert kinds_written_in_fixes() == declared
    assert not set(FIX_ONLY) & set(CODES), "a fix-only code is a diagnostic code too"


@pytest.mark.parametrize(("code", "line_no", "data", "module"), FINDINGS)
def test_what_fixes_offers_for_a_code_is_what_the_code_declares(
    code: str, line_no: int, data: dict[str, object], module: str
) -> None:
    offered = {f.kind for f in fixes_for(buffer(MODEL), code, line_no, data, module)}
    assert offered, f"no fix offered for {code}: the sample no longer fits it"
    assert offered <= set(CODES[code].fixes), (code, offered)


def test_every_declared_fix_kind_is_offered_for_its_code() -> None:
    offered = {
        (code, f.kind)
        for code, n, data, module in FINDINGS
        for f in fixes_for(buffer(MODEL), code, n, data, module)
    }
    declared = {(code, kind) for code, entry in CODES.items() for kind in entry.fixes}
    assert declared - offered == set(), "declared in the codes registry, never offered by fixes_for"


def test_a_code_without_declared_fixes_is_offered_none() -> None:
    for code, entry in CODES.items():
        if not entry.fixes:
            assert (
                fixes_for(buffer(MODEL), code, line("if x.max()"), {"name": "last", "class": "Out"}, "M")
                == []
            ), code
