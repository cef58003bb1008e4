"""The stable codes: one per kind of failure, with what it means and what to do.

Codes never change meaning once shipped (editors and CI configs key on them);
docs/codes.md documents each one under an anchor of the same name.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..findings import Severity


def _docs_base() -> str:
    """docs/codes.md beside the package (a checkout, the .vsix) opens offline; else the repository."""
    local = Path(__file__).resolve().parents[3] / "docs" / "codes.md"
    if local.is_file():
        return local.as_uri() + "#"
    return "https://github.com/exportlens/exportlens/blob/main/docs/codes.md#"


DOCS = _docs_base()
EXPORT_DOCS = "https://pytorch.org/docs/stable/export.html"
COND_DOCS = "https://pytorch.org/docs/stable/cond.html"
EXPORTDB = "https://pytorch.org/docs/main/generated/exportdb/index.html"
GB_SITE = "https://meta-pytorch.github.io/compile-graph-break-site/gb/{}.html"
CUSTOM_OPS = "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html"


@dataclass(frozen=True)
class Code:
    code: str
    why: str  # what went wrong, in plain words
    fix: str  # what to do next
    severity: Severity = "error"
    url: str | None = None  # None: this code's anchor in docs/codes.md


def _c(code: str, why: str, fix: str, url: str | None = None, severity: Severity = "error") -> Code:
    return Code(code, why, fix, severity, url)


CODES: dict[str, Code] = {
    c.code: c
    for c in (
        _c(
            "data-dependent-branch",
            "a Python `if`/`while` decides on a tensor's values, which are unknown while tracing",
            "use `torch.cond(pred, true_fn, false_fn, (x,))` or a branchless `torch.where(...)`",
            EXPORT_DOCS,
        ),
        _c(
            "data-dependent-guard",
            "control flow depends on a value read out of a tensor (`.item()`, "
            "`nonzero().shape[0]`, ...), unknown while tracing",
            "tell torch what holds with `torch._check(...)`, or move the decision into `torch.cond`",
            EXPORT_DOCS,
        ),
        _c(
            "tensor-to-python-scalar",
            "`float()`/`int()`/`bool()` of a tensor needs its value, which fake tensors do not have",
            "keep it a tensor (`x * x.sum()`), or use strict mode",
        ),
        _c(
            "tensor-assert",
            "`assert` on a tensor condition needs the tensor's value",
            "use `torch._check(cond)` for shapes, or drop the assert for values",
        ),
        _c(
            "tensor-numpy",
            "`.numpy()` needs real data; fake tensors have none",
            "use the torch equivalent of the numpy call, or export in strict mode (dynamo traces numpy)",
        ),
        _c(
            "tensor-data-ptr",
            "the code reads a tensor's memory address / data pointer",
            "drop the `data_ptr()` use, or wrap the kernel that needs it in a custom op",
            CUSTOM_OPS,
        ),
        _c(
            "tensor-deepcopy",
            "`copy.deepcopy` of a tensor inside forward cannot be traced",
            "use `x.clone()`",
        ),
        _c(
            "dim-specialized",
            "a dimension marked dynamic is forced to one fixed size by the code",
            "derive sizes from the input (`x.reshape(-1, 16)`, `x.shape[0]`), or mark the Dim static / "
            "`Dim.AUTO`",
        ),
        _c(
            "dim-static-partner",
            "a dynamic dimension meets a static one in the same operation, so it is "
            "forced to the static size",
            "give the partner input the same Dim in `dynamic_shapes`",
        ),
        _c(
            "dim-range-narrowed",
            "the code only works for part of the Dim's declared range",
            "narrow the Dim as suggested (e.g. `Dim('batch', max=16)`), or remove the shape test",
        ),
        _c(
            "dims-must-be-equal",
            "two dimensions declared with different Dims must always be equal",
            "use one Dim for both (e.g. `by = bx`)",
        ),
        _c(
            "dim-example-too-small",
            "the example input has size 0 or 1 on a dynamic dimension; torch "
            "specialises 0 and 1, so the Dim becomes a constant",
            "use an example of size ≥ 2 on that dimension (torch's suggestion to set it to 1 is not the fix)",
        ),
        _c(
            "example-outside-dim-range",
            "an example input's size lies outside its Dim's declared range",
            "change the example input or widen the Dim's min/max",
        ),
        _c(
            "dynamic-shapes-invalid",
            "`dynamic_shapes` does not match the module's inputs (a wrong key or structure)",
            "use the forward's argument names as keys, or a tuple in argument order",
            EXPORTDB + "#dynamic-shapes-validation",
        ),
        _c(
            "unsupported-builtin",
            "a Python builtin (e.g. `open`, `print` in old torch) cannot be traced by dynamo",
            "move it out of forward, or export non-strict",
        ),
        _c(
            "untraceable-call",
            "a call dynamo will not trace (`time.time`, `random`, `torch.manual_seed`, a C extension)",
            "move it out of forward (pass the value in as an input), or export non-strict",
        ),
        _c(
            "unsupported-python",
            "Python that dynamo cannot trace (e.g. `json`, some library calls)",
            "move it out of forward, or export non-strict",
        ),
        _c(
            "observed-exception",
            "dynamo hit a Python exception while tracing this line (e.g. an f-string "
            "or `hash()` of a tensor)",
            "avoid formatting / hashing tensors inside forward, or export non-strict",
        ),
        _c("graph-break", "dynamo cannot trace this code", "see the linked graph-break page for workarounds"),
        _c(
            "cond-branch-mismatch",
            "the two branches of `torch.cond` return different dtypes, ranks or numbers of outputs",
            "make both branches return the same structure, dtypes and ranks",
            COND_DOCS,
        ),
        _c(
            "cond-branch-aliases-input",
            "a `torch.cond` branch returns (a view of) its input",
            "return `x.clone()` instead of `x`",
            COND_DOCS,
        ),
        _c(
            "missing-fake-kernel",
            "a custom op has no fake (meta) kernel, so its output shape is unknown while tracing",
            "register one with `@torch.library.register_fake`",
            CUSTOM_OPS,
        ),
        _c(
            "fake-kernel-mismatch",
            "a custom op's fake kernel disagrees with its real kernel (shape, dtype or strides)",
            "make the `register_fake` function return what the real kernel returns",
            CUSTOM_OPS,
        ),
        _c(
            "user-exception",
            "not an export refusal: your code raised an exception while it ran",
            "fix the bug; the same exception happens in eager",
        ),
        _c(
            "import-error",
            "the file raised while being imported, so nothing was exported",
            "fix the error on this line",
        ),
        _c(
            "inputs-error",
            "building the example inputs raised, so nothing was exported",
            "fix the code that builds the inputs",
        ),
        _c(
            "module-init-error",
            "the module could not be constructed (`__init__` raised)",
            "fix the constructor, or give the arguments it needs",
        ),
        _c(
            "user-exit",
            "the code called `sys.exit()` / raised SystemExit or KeyboardInterrupt",
            'do not exit from module code; guard scripts with `if __name__ == "__main__":`',
        ),
        _c(
            "out-of-memory",
            "the export ran out of the memory limit",
            "use smaller example inputs or "
            "build the model on `torch.device('meta')`, or raise the memory limit",
        ),
        _c("export-error", "torch.export failed", "see the message"),
        _c(
            "internal-error",
            "ExportLens itself failed on this module",
            "please report it",
            severity="warning",
        ),
    )
}


def url_for(code: str, gb_id: str | None = None) -> str:
    if gb_id:
        return GB_SITE.format(gb_id)
    entry = CODES.get(code)
    return entry.url if entry and entry.url else DOCS + code
