"""Codes of a lowering after a clean export: the program does not go where it ships (issue 17).

Made by the child's lowering (`worker/lowering/`), placed by `diagnosis/lowerings.py`; each
message names the target that refused ("ONNX: ...").  docs/targets.md says what each checks.
"""

from __future__ import annotations

from .model import Code, _c

ONNX_DOCS = "https://pytorch.org/docs/stable/onnx_export.html"
AOTI_DOCS = "https://pytorch.org/docs/stable/torch.compiler_aot_inductor.html"
EXECUTORCH_OPS = "https://pytorch.org/executorch/stable/ir-ops-set-definition.html"
EXECUTORCH_XNNPACK = "https://pytorch.org/executorch/stable/backends-xnnpack.html"
EXECUTORCH_KERNELS = "https://pytorch.org/executorch/stable/kernel-library-custom-aten-kernel.html"
COREML_OPS = "https://apple.github.io/coremltools/docs-guides/source/custom-operators.html"

CODES: dict[str, Code] = {
    c.code: c
    for c in (
        _c(
            "core-aten-op",
            "after the Core ATen decompositions an op is left that is not in the Core ATen opset "
            "(no `torch.Tag.core`): ExecuTorch's verifier refuses it",
            "rewrite the line with Core ATen ops, register a decomposition for the op, or lower to a "
            "backend that delegates it (a partitioner that claims the op)",
            EXECUTORCH_OPS,
            tracer=None,
        ),
        _c(
            "onnx-no-translation",
            "torch.onnx.export has no ONNX translation for an op of the program, and no decomposition into "
            "ops it has",
            "rewrite the line with ops ONNX supports, or give torch.onnx.export a `custom_translation_table` "
            "entry (an onnxscript function) for the op",
            ONNX_DOCS,
            tracer=None,
        ),
        _c(
            "onnx-decomposition-failed",
            "torch.onnx.export's decomposition of the program into ops it translates failed",
            "rewrite the line with plainer ops; check the op's registered decomposition",
            ONNX_DOCS,
            tracer=None,
        ),
        _c(
            "onnx-dynamic-shape",
            "the ONNX export cannot keep a dynamic dim that torch.export kept",
            "make the dim static in `dynamic_shapes`, or rewrite the shape arithmetic on the line",
            ONNX_DOCS,
            tracer=None,
        ),
        _c(
            "onnx-checker-error",
            "the ONNX model torch.onnx.export wrote fails `onnx.checker` (an invalid model)",
            "rewrite the line with other ops, or report the op's translation to onnxscript",
            ONNX_DOCS,
            tracer=None,
        ),
        _c(
            "onnx-export-error",
            "torch.onnx.export refused the program for a reason not classified above",
            "read torch's message; rewrite the line it names",
            ONNX_DOCS,
            tracer=None,
        ),
        _c(
            "onnx-numeric-mismatch",
            "the ONNX model runs in ONNX Runtime but its outputs differ from eager PyTorch beyond tolerance",
            "check the first line where the values diverge: an op's translation or decomposition there "
            "computes something else (a custom op's registered decomposition, a dtype, an integer division)",
            ONNX_DOCS,
            severity="warning",
            tracer=None,
        ),
        _c(
            "aoti-compile-error",
            "AOTInductor (`torch._inductor.aoti_compile_and_package`) cannot compile the exported program: "
            "inductor has no lowering or C++ code for an op of it, or the C++ compile fails",
            "rewrite the line with other ops (a custom op returning a Tensor, not an int), or keep the "
            "module out of the AOTInductor build",
            AOTI_DOCS,
            tracer=None,
        ),
        _c(
            "aoti-runtime-error",
            "the compiled AOTInductor package refuses inputs torch.export accepts: its run-time checks "
            "(a dim's range, a `torch._check`) or a kernel raise, on the example inputs or at a size inside "
            "a dim's range",
            "check the dim's range in `dynamic_shapes` and the `torch._check` on the line",
            AOTI_DOCS,
            tracer=None,
        ),
        _c(
            "aoti-numeric-mismatch",
            "the compiled AOTInductor package runs but its outputs differ from eager PyTorch beyond "
            "`torch.testing.assert_close`'s tolerance",
            "compare the module in eager and compiled on these inputs; report the op to PyTorch (inductor)",
            AOTI_DOCS,
            severity="warning",
            tracer=None,
        ),
        _c(
            "executorch-lowering-error",
            "ExecuTorch's `to_edge_transform_and_lower` refuses the program: the edge dialect's verifier, a "
            "pass or the partitioner raised",
            "read ExecuTorch's message; rewrite the line it names with Core ATen ops and shapes the edge "
            "dialect keeps, or lower it with another backend",
            EXECUTORCH_OPS,
            tracer=None,
        ),
        _c(
            "executorch-emit-error",
            "ExecuTorch's `to_executorch` refuses the lowered program: memory planning (a dynamic dim "
            "without a bound), the emitter, or an out-variant it has no kernel signature for",
            "give each dynamic dim a `max` in `dynamic_shapes`; rewrite the line ExecuTorch names",
            EXECUTORCH_OPS,
            tracer=None,
        ),
        _c(
            "executorch-missing-kernel",
            "the `.pte` builds, but ExecuTorch's runtime has no kernel for an operator of it and its method "
            'fails to load ("Missing operator: aten::sort.values")',
            "rewrite the line with an op the runtime has (the message names one where there is one), "
            "register a custom kernel for the op in the runtime build, or lower it with a backend that "
            "delegates it",
            EXECUTORCH_KERNELS,
            tracer=None,
        ),
        _c(
            "executorch-not-delegated",
            "an op is left out of the XNNPACK delegate: it runs on ExecuTorch's portable CPU kernel, usually "
            "much slower on a device",
            "rewrite the line with ops and dtypes XNNPACK takes (float32 / float16, or quantize the "
            "program), or accept the portable kernel",
            EXECUTORCH_XNNPACK,
            severity="warning",
            tracer=None,
        ),
        _c(
            "executorch-no-delegate",
            "ExecuTorch lowered the program with no subgraph delegated to XNNPACK: it runs on the portable "
            "kernels only",
            "use ops and dtypes XNNPACK takes, or lower with another backend's partitioner",
            EXECUTORCH_XNNPACK,
            severity="warning",
            tracer=None,
        ),
        _c(
            "executorch-load-error",
            "ExecuTorch's runtime does not load the `.pte`'s method, for a reason other than a missing "
            "kernel (a backend missing from the runtime build, a corrupt program)",
            "read the runtime's error code; check the backends and operators of the runtime build",
            EXECUTORCH_KERNELS,
            tracer=None,
        ),
        _c(
            "executorch-run-error",
            "the `.pte` loads but ExecuTorch's runtime refuses inputs torch.export accepts: on the example "
            "inputs, or at a size inside a dynamic dim's range beyond what the memory plan keeps",
            "give the dim a `max` in `dynamic_shapes` the runtime can plan for; check the inputs' dtypes",
            EXECUTORCH_OPS,
            tracer=None,
        ),
        _c(
            "executorch-numeric-mismatch",
            "the `.pte` runs in ExecuTorch's runtime but its outputs differ from eager PyTorch beyond "
            "tolerance",
            "the message names the delegated op that makes the difference when leaving it out of "
            "XNNPACK proves it: use its spelling there, or leave the op out of XNNPACK; else compare the "
            "module's ops in eager and in the `.pte` (a dtype, an accumulation order) and report it to "
            "ExecuTorch",
            EXECUTORCH_XNNPACK,
            severity="warning",
            tracer=None,
        ),
        _c(
            "target-not-run",
            "a target's check did not run, or only in part: a package it needs is not installed, or the "
            "model was built without real values (fake devices, meta weights)",
            "install what the message names into the interpreter that runs the checks, or build on the CPU "
            "(`exportlens.device: cpu`, a higher `metaAboveMb`)",
            severity="information",
            refusal=False,
            tracer=None,
        ),
        _c(
            "executorch-quantize-error",
            "with `exportlens.quantize` `xnnpack`, torchao's pt2e flow refuses the program: "
            "`prepare_pt2e` with the XNNPACK quantizer, the calibration call, `convert_pt2e` or the "
            "converted module's export",
            "read torchao's message; rewrite the line it names, or check the float program "
            "(`exportlens.quantize` `none`)",
            EXECUTORCH_XNNPACK,
            tracer=None,
        ),
        _c(
            "executorch-quantized-error",
            "with `exportlens.quantize` `xnnpack`, the int8 `.pte`'s outputs differ from the float eager "
            "model by more than 10 % of the output's range",
            "calibrate on inputs like the real ones, keep the line that loses the precision in float "
            "(`quantizer.set_module_type(..., None)`), or avoid subtracting nearly equal values in int8",
            EXECUTORCH_XNNPACK,
            severity="warning",
            tracer=None,
        ),
        _c(
            "coreml-conversion-error",
            "coremltools' `ct.convert` refuses the program: the translation of an op raised on this form "
            "of it (its inputs, a dynamic shape), or a MIL pass did",
            "rewrite the line with another spelling of the op, override its translation with "
            "`@register_torch_op(override=True)`, or lower to another target",
            COREML_OPS,
            tracer=None,
        ),
        _c(
            "coreml-unsupported-op",
            'coremltools has no translation for an op of the program ("Unsupported fx node")',
            "rewrite the line with ops coremltools converts, register a translation with "
            "`@register_torch_op` (a composite of MIL ops), or lower to another target",
            COREML_OPS,
            tracer=None,
        ),
    )
}
