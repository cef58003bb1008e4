"""Codes of what torch.export refuses: `diagnosis/` picks one from the failure record."""

from __future__ import annotations

from .model import COND_DOCS, CUSTOM_OPS, EXPORT_DOCS, EXPORTDB, Code, _c

CODES: dict[str, Code] = {
    c.code: c
    for c in (
        # torch.export refuses the module (diagnosis/classification.py picks one from the failure record).
        _c(
            "data-dependent-branch",
            "a Python `if`/`while` decides on a tensor's values, which are unknown while tracing",
            "use `torch.cond(pred, true_fn, false_fn, (x,))` or a branchless `torch.where(...)`",
            EXPORT_DOCS,
            tracer="both",
            library=True,
            fixes=("cond", "where"),
        ),
        _c(
            "data-dependent-guard",
            "control flow depends on a value read out of a tensor (`.item()`, "
            "`nonzero().shape[0]`, ...), unknown while tracing",
            "tell torch what holds with `torch._check(...)`, or move the decision into `torch.cond`",
            EXPORT_DOCS,
            tracer="both",
            library=True,
            fixes=("cond", "where", "check"),
        ),
        _c(
            "tensor-to-python-scalar",
            "`float()`/`int()`/`bool()` of a tensor needs its value, which fake tensors do not have",
            "keep the value a tensor (compute with it instead of converting it)",
            tracer="non-strict",
            switch="use strict mode",
            library=True,
        ),
        _c(
            "tensor-assert",
            "`assert` on a tensor condition needs the tensor's value",
            "use `torch._check(cond)` for shapes, or drop the assert for values",
            tracer="both",  # strict: `assert not t.any()` (dynamo reads it as a branch)
            library=True,
        ),
        _c(
            "tensor-numpy",
            "`.numpy()` needs real data; fake tensors have none",
            "use the torch equivalent of the numpy call",
            tracer="non-strict",
            switch="export in strict mode (dynamo traces numpy)",
            library=True,
        ),
        _c(
            "tensor-data-ptr",
            "the code reads a tensor's memory address / data pointer",
            "drop the `data_ptr()` use, or wrap the kernel that needs it in a custom op",
            CUSTOM_OPS,
            tracer="non-strict",
            library=True,
        ),
        _c(
            "tensor-deepcopy",
            "`copy.deepcopy` of a tensor inside forward cannot be traced",
            "use `x.clone()`",
            tracer="both",
            library=True,
        ),
        _c(
            "dim-specialized",
            "a dimension marked dynamic is forced to one fixed size by the code",
            "derive the size from the input instead of a fixed number, or mark the Dim static / `Dim.AUTO`",
            tracer="both",
            library=True,
            fixes=("dims",),
        ),
        _c(
            "dim-static-partner",
            "a dynamic dimension meets a static one in the same operation, so it is "
            "forced to the static size",
            "give the partner input the same Dim in `dynamic_shapes`",
            tracer="both",
            library=True,
            fixes=("dims",),
        ),
        _c(
            "dim-range-narrowed",
            "the code only works for part of the Dim's declared range",
            "narrow the Dim to the sizes the code accepts (as torch suggests), or remove the shape test",
            tracer="both",
            library=True,
            fixes=("dims",),
        ),
        _c(
            "dims-must-be-equal",
            "two dimensions declared with different Dims must always be equal",
            "use one Dim for both",
            tracer="both",
            library=True,
            fixes=("dims",),
        ),
        _c(
            "dim-example-too-small",
            "the example input has size 0 or 1 on a dynamic dimension; torch "
            "specialises 0 and 1, so the Dim becomes a constant",
            "use an example of size ≥ 2 on that dimension (torch's suggestion to set it to 1 is not the fix)",
            tracer="both",
            library=True,
            fixes=("example",),
        ),
        _c(
            "example-outside-dim-range",
            "an example input's size lies outside its Dim's declared range",
            "change the example input or widen the Dim's min/max",
            tracer="both",
            library=True,
            fixes=("dims",),
        ),
        _c(
            "dynamic-shapes-invalid",
            "`dynamic_shapes` does not match the module's inputs (a wrong key or structure)",
            "use the forward's argument names as keys, or a tuple in argument order",
            EXPORTDB + "#dynamic-shapes-validation",
            tracer="both",
            library=True,
        ),
        _c(
            "unsupported-builtin",
            "a Python builtin (e.g. `open`, `print` in old torch) cannot be traced by dynamo",
            "move it out of forward",
            tracer="strict",
            library=True,
            switch="export non-strict",
        ),
        _c(
            "untraceable-call",
            "a call dynamo will not trace (`time.time`, `random`, `torch.manual_seed`, a C extension)",
            "move it out of forward (pass the value in as an input)",
            tracer="strict",
            switch="export non-strict",
            library=True,
        ),
        _c(
            "unsupported-python",
            "Python that dynamo cannot trace (e.g. `json`, some library calls)",
            "move it out of forward",
            tracer="strict",
            switch="export non-strict",
            library=True,
        ),
        _c(
            "observed-exception",
            "dynamo hit a Python exception while tracing this line (e.g. an f-string "
            "or `hash()` of a tensor)",
            "avoid formatting / hashing tensors inside forward",
            tracer="strict",
            switch="export non-strict",
            library=True,
        ),
        _c(
            "graph-break",
            "dynamo cannot trace this code",
            "see the linked graph-break page for workarounds",
            tracer="strict",
            library=True,
        ),
        _c(
            "cond-branch-mismatch",
            "the two branches of `torch.cond` return different dtypes, ranks or numbers of outputs",
            "make both branches return the same structure, dtypes and ranks",
            COND_DOCS,
            tracer="both",
            library=True,
        ),
        _c(
            "cond-branch-aliases-input",
            "a `torch.cond` branch returns (a view of) its input",
            "return `x.clone()` instead of `x`",
            COND_DOCS,
            tracer="both",
            library=True,
        ),
        _c(
            "missing-fake-kernel",
            "a custom op has no fake (meta) kernel, so its output shape is unknown while tracing",
            "register one with `@torch.library.register_fake`",
            CUSTOM_OPS,
            tracer="both",
            library=True,
        ),
        _c(
            "device-mismatch",
            "tensors on two devices meet in one op: one made on the CPU in a forward that runs on the "
            "GPU, or inputs on another device than the parameters",
            "create the tensor on its partner's device (`device=x.device`), or move the inputs and the "
            "module to the same device",
            tracer="both",
            library=True,
        ),
        _c(
            "fake-kernel-mismatch",
            "a custom op's fake kernel disagrees with its real kernel (shape, dtype or strides)",
            "make the `register_fake` function return what the real kernel returns",
            CUSTOM_OPS,
            tracer="non-strict",
            library=True,
        ),
        _c(
            "unflattenable-output",
            "forward returns an object torch.export cannot flatten into tensors (a class it does not know)",
            "register it: `torch.export.register_dataclass(Cls)` for a dataclass, a pytree node otherwise; "
            "or return a tuple / dict of tensors",
            tracer="both",
            library=True,
            fixes=("register-dataclass", "cache-wrapper"),
        ),
        # The classification's deliberate fallback: a refusal that no code above describes.
        _c("export-error", "torch.export failed", "see the message", tracer="both", library=True),
    )
}
