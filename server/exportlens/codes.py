"""Every diagnostic code ExportLens emits, declared once: its severity, what it means, what to do.

Codes never change meaning once shipped (editors and CI configs key on them);
docs/codes.md documents each one under an anchor of the same name.  A Finding
with a code missing here cannot be made (`registered`), and
tests/test_codes_registry.py checks the docs and every code literal of the
package against this table.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # findings.py imports this module to check codes: no import cycle at run time
    from .findings import Severity


def _docs_base() -> str | None:
    """docs/codes.md in the package (a wheel) or beside it (a checkout, the .vsix): it opens
    offline. None without one: the project has no public address to link to instead."""
    here = Path(__file__).resolve()
    for docs in (here.parent / "docs" / "codes.md", here.parents[2] / "docs" / "codes.md"):
        if docs.is_file():
            return docs.as_uri() + "#"
    return None


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
    refusal: bool = True  # torch refused the code; False: it raised, exited, ran out of memory, ...


def _c(
    code: str,
    why: str,
    fix: str,
    url: str | None = None,
    severity: Severity = "error",
    refusal: bool = True,
) -> Code:
    return Code(code, why, fix, severity, url, refusal)


CODES: dict[str, Code] = {
    c.code: c
    for c in (
        # torch.export refuses the module (diagnosis/kinds.py picks one from the failure record).
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
            "unflattenable-output",
            "forward returns an object torch.export cannot flatten into tensors (a class it does not know)",
            "register it: `torch.export.register_dataclass(Cls)` for a dataclass, a pytree node otherwise; "
            "or return a tuple / dict of tensors",
        ),
        # kinds.py's deliberate fallback: a refusal that no code above describes.
        _c("export-error", "torch.export failed", "see the message"),
        # The checked code raised, exited or ran out of memory: not a refusal, eager does the same.
        _c(
            "user-exception",
            "not an export refusal: your code raised an exception while it ran",
            "fix the bug; the same exception happens in eager",
            refusal=False,
        ),
        _c(
            "raised-only-when-traced",
            "an exception raised while tracing that eager does not raise on the same inputs (a check "
            "that reads values or Python types tracing replaces, e.g. a `SymBool` where a `bool` is needed)",
            "keep the check off the traced path (`if not torch.compiler.is_exporting(): ...`) or state "
            "it as `torch._check(...)`",
        ),
        _c(
            "import-error",
            "the file raised while being imported, so nothing was exported",
            "fix the error on this line",
            refusal=False,
        ),
        _c(
            "inputs-error",
            "building the example inputs raised, so nothing was exported",
            "fix the code that builds the inputs",
            refusal=False,
        ),
        _c(
            "module-init-error",
            "the module could not be constructed (`__init__` raised)",
            "fix the constructor, or give the arguments it needs",
            refusal=False,
        ),
        _c(
            "user-exit",
            "the code called `sys.exit()` / raised SystemExit or KeyboardInterrupt",
            'do not exit from module code; guard scripts with `if __name__ == "__main__":`',
            refusal=False,
        ),
        _c(
            "out-of-memory",
            "the export ran out of the memory limit",
            "use smaller example inputs or "
            "build the model on `torch.device('meta')`, or raise the memory limit",
            refusal=False,
        ),
        # Exported, but the program does not do what eager does (diagnosis/baked).
        _c(
            "side-effect-baked",
            "code in forward runs once, at export time, and is not part of the exported program "
            "(print/logging, a global or `self` attribute changed, a clock/random/`id()` value baked in)",
            "move it out of forward, guard it with `torch.compiler.is_exporting()`, or pass the value in",
            severity="warning",
        ),
        _c(
            "tensor-attribute-not-buffer",
            "forward assigns a tensor to a `self` attribute that is no registered buffer: the exported "
            "program drops the assignment",
            "`register_buffer` it in `__init__` and update it in place, or return it",
            severity="warning",
        ),
        _c(
            "exported-in-training-mode",
            "dropout / batch-norm were exported in training mode",
            "call `.eval()` before exporting, or pass `training=self.training` to the functional call",
            severity="warning",
        ),
        _c(
            "input-mutated",
            "forward writes into an input tensor in place: the exported program changes the caller's tensor",
            "use an out-of-place op, or work on a `.clone()` of the input",
            severity="warning",
        ),
        # ExportLens's own: the file, the inputs, the worker, the editor.
        _c(
            "internal-error",
            "ExportLens itself failed on this module",
            "please report it",
            severity="warning",
            refusal=False,
        ),
        _c(
            "syntax-error",
            "the file does not parse (or cannot be decoded), so nothing was exported",
            "fix the syntax error; save the file as UTF-8 or declare its encoding",
        ),
        _c(
            "no-example-inputs",
            "ExportLens found no example inputs for this module, so it was not checked",
            "add an `example_inputs(self)` method, or a `torch.export.export(...)` call",
            severity="information",
        ),
        _c(
            "possible-later-failure",
            "the search past the first failure found this one, but whether the real export gets here "
            "depends on how the earlier failure is fixed",
            "fix the earlier failure first; check again",
            severity="information",
        ),
        _c(
            "guessed-inputs-failed",
            "the export failed on inputs ExportLens guessed (from the first layer), which may be wrong",
            "give the module real inputs: an `example_inputs(self)` method, or a "
            "`torch.export.export(...)` call",
            severity="information",
        ),
        _c(
            "not-a-module",
            "what was built for the check is no `torch.nn.Module`, so it was skipped",
            "nothing, unless it is a model: then derive it from `torch.nn.Module`",
            severity="information",
        ),
        _c(
            "export-timeout",
            "the export did not finish within the time limit and was stopped",
            "look for a loop that never ends, or raise the limit (`timeoutSeconds`, `--timeout`)",
        ),
        _c(
            "worker-crashed",
            "the process exporting the module crashed or exited (a signal, `os._exit`)",
            "find the native crash or `os._exit` in the module's code or a library it calls",
        ),
        _c(
            "worker-unavailable",
            "the export worker cannot start in the configured interpreter (no torch, torch < 2.1, ...)",
            "point ExportLens at an interpreter that has torch >= 2.1",
        ),
        _c(
            "export-site-failed",
            "exporting the module with another file's export call failed, and the failure is in that file",
            "open the file with the export call to see and fix the failure",
        ),
        _c(
            "untrusted-workspace",
            "the workspace is untrusted: ExportLens runs no code, only static checks are shown",
            "trust the workspace to see export results",
            severity="information",
        ),
    )
}


class UnknownCodeError(ValueError):
    """A finding was made with a code this table does not declare (a typo, or a code not added here)."""


def registered(code: str) -> Code:
    """The registry's entry for `code`; an unknown code is a bug, never silently another code."""
    entry = CODES.get(code)
    if entry is None:
        raise UnknownCodeError(
            f"{code!r} is not a registered diagnostic code: declare it in CODES "
            f"(server/exportlens/codes.py) and document it under `## {code}` in docs/codes.md"
        )
    return entry


def url_for(code: str, gb_id: str | None = None) -> str | None:
    if gb_id:
        return GB_SITE.format(gb_id)
    entry = registered(code)
    return entry.url or (DOCS + code if DOCS else None)
