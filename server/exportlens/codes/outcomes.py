"""Codes of a check that reached no export verdict: the checked code raised or exited, or the
file, the inputs, the worker or the editor stopped it (ExportLens's own)."""

from __future__ import annotations

from .model import Code, _c

CODES: dict[str, Code] = {
    c.code: c
    for c in (
        # The checked code raised, exited or ran out of memory: not a refusal, eager does the same.
        _c(
            "user-exception",
            "not an export refusal: your code raised an exception while it ran",
            "fix the bug; the same exception happens in eager",
            refusal=False,
            tracer="both",
            library=True,
        ),
        _c(
            "raised-only-when-traced",
            "an exception raised while tracing that eager does not raise on the same inputs (a check "
            "that reads values or Python types tracing replaces, e.g. a `SymBool` where a `bool` is needed)",
            "keep the check off the traced path (`if not torch.compiler.is_exporting(): ...`) or state "
            "it as `torch._check(...)`",
            tracer="both",
            library=True,
        ),
        _c(
            "import-error",
            "the file raised while being imported, so nothing was exported",
            "fix the error on this line",
            refusal=False,
            tracer=None,
            library=True,  # raised inside an installed library (a model's import of its kernels)
        ),
        # Information, as every code of ExportLens's own (`own`): torch never saw the module. The
        # inputs are what ExportLens rebuilt from the code (a loop's first call, a config's
        # defaults): that they raise here says nothing of what `python script.py` does.
        _c(
            "inputs-error",
            "building the example inputs raised, so nothing was exported",
            "if the script runs as it is, give the module inputs ExportLens can build (an "
            "`example_inputs(self)` method, or a `torch.export.export(...)` call); else fix the code "
            "that builds them",
            severity="information",
            refusal=False,
            tracer=None,
            library=True,
            own=True,
        ),
        _c(
            "needs-real-device",
            "building the module or its inputs needs real values or a device this check does not have",
            "keep value reads (`.item()`, `torch.load`, CUDA calls) out of what the export needs, or "
            "set `exportlens.device` to `cpu` (`--device cpu`) to build them on the CPU with real values",
            severity="warning",
            refusal=False,
            tracer=None,
            library=True,
            own=True,
        ),
        _c(
            "module-init-error",
            "the module could not be constructed (`__init__` raised), so nothing was exported",
            "fix the constructor, or give the arguments it needs",
            severity="information",
            refusal=False,
            tracer=None,
            library=True,
            own=True,
        ),
        _c(
            "user-exit",
            "the code called `sys.exit()` / raised SystemExit or KeyboardInterrupt",
            'do not exit from module code; guard scripts with `if __name__ == "__main__":`',
            refusal=False,
            tracer=None,
        ),
        _c(
            "out-of-memory",
            "the code ran out of memory: an allocation was refused, or the memory limit was reached",
            "use smaller example inputs or "
            "build the model on `torch.device('meta')`, or raise the memory limit",
            refusal=False,
            tracer=None,
        ),
        # ExportLens's own: the file, the inputs, the worker, the editor.
        _c(
            "internal-error",
            "ExportLens itself failed on this module",
            "please report it",
            severity="warning",
            refusal=False,
            tracer=None,
            undecided=True,
            own=True,
        ),
        _c(
            "syntax-error",
            "the file does not parse (or cannot be decoded), so nothing was exported",
            "fix the syntax error; save the file as UTF-8 or declare its encoding",
            tracer=None,
        ),
        _c(
            "no-example-inputs",
            "ExportLens found no example inputs for this module, so it was not checked",
            "add an `example_inputs(self)` method, or a `torch.export.export(...)` call",
            severity="information",
            tracer=None,
            fixes=("export-call",),
            own=True,
        ),
        _c(
            "possible-later-failure",
            "the search past the first failure found this one, but whether the real export gets here "
            "depends on how the earlier failure is fixed",
            "fix the earlier failure first; check again",
            severity="information",
            tracer="both",
            library=True,
        ),
        _c(
            "guessed-inputs-failed",
            "the export failed on inputs ExportLens guessed (from the first layer), which may be wrong",
            "give the module real inputs: an `example_inputs(self)` method, or a "
            "`torch.export.export(...)` call",
            severity="information",
            tracer="both",
            library=True,
            own=True,
        ),
        _c(
            "recorded-inputs-failed",
            "a part checked alone, on the inputs its parent gives it, fails where the export of the "
            "parent (which holds it) does not",
            "nothing for the parent's export; to export the part on its own, give it real inputs: an "
            "`example_inputs(self)` method, or a `torch.export.export(...)` call",
            severity="information",
            tracer="both",
            library=True,
            own=True,
        ),
        _c(
            "meta-weights",
            "the module exported with meta weights (above the meta-weights threshold, or built on "
            "`torch.device('meta')` by its code): nothing that reads values was checked",
            "nothing for the graph; to check it on real memory, raise `metaAboveMb` / `--meta-above` "
            "or give the module real weights",
            severity="information",
            refusal=False,
            tracer=None,
        ),
        _c(
            "not-a-module",
            "what was built for the check is no `torch.nn.Module`, so it was skipped",
            "nothing, unless it is a model: then derive it from `torch.nn.Module`",
            severity="information",
            tracer=None,
            own=True,
        ),
        _c(
            "export-timeout",
            # A warning: the check ran out of time, which says nothing of whether torch exports it
            # (a mid-size model on a loaded machine, or a loop that never ends: both look the same).
            "the check did not finish within the time limit and was stopped: whether torch exports "
            "the module is not known",
            "if the model is slow or the machine busy, raise the limit (`timeoutSeconds`, `--timeout`); "
            "if it never finishes, look for a loop that never ends",
            tracer=None,
            severity="warning",
            undecided=True,
            own=True,
        ),
        _c(
            "worker-crashed",
            "the process exporting the module crashed or exited (a signal, `os._exit`)",
            "find the native crash or `os._exit` in the module's code or a library it calls",
            tracer=None,
        ),
        _c(
            "worker-unavailable",
            "the export worker cannot start in the configured interpreter (no torch, torch < 2.1, ...)",
            "point ExportLens at an interpreter that has torch >= 2.1",
            tracer=None,
        ),
        _c(
            "export-site-failed",
            "exporting the module with another file's export call failed, and the failure is in that file",
            "open the file with the export call to see and fix the failure",
            tracer=None,
        ),
        _c(
            "config-error",
            "a value of `[tool.exportlens]` in pyproject.toml is not allowed, so that key is not used",
            "write one of the values the message names (docs/configuration.md)",
            refusal=False,
            tracer=None,
        ),
        _c(
            "unknown-ignore-code",
            "an `# exportlens: ignore[...]` comment names a code ExportLens does not have, so it "
            "silences nothing for that code",
            "write the code as the finding shows it (docs/codes.md), or remove it",
            severity="warning",
            refusal=False,
            tracer=None,
        ),
        _c(
            "untrusted-workspace",
            "the workspace is untrusted: ExportLens runs no code, only static checks are shown",
            "trust the workspace to see export results",
            severity="information",
            tracer=None,
            own=True,
        ),
        _c(
            "exports-unsupported-platform",
            "this machine cannot run exports (native Windows): ExportLens runs no code, only static"
            " checks are shown",
            "run ExportLens inside WSL (VS Code: open the folder with the WSL extension)",
            severity="information",
            tracer=None,
            own=True,
        ),
        _c(
            "notebook-skipped-name",
            "the notebook cell with the export call reads a name that only a statement ExportLens does"
            " not run binds (a loop, data loading, training, a call: only imports, definitions and"
            " constants of the other cells run)",
            "bind the name in the export cell, or make it a constant, a function or an import",
            severity="information",
            refusal=False,
            tracer=None,
            own=True,
        ),
    )
}


# Quick-fixes offered where no finding is (on an export call), under a code of their own that no
# diagnostic has: `Fix.code` -> its `Fix.kind`s.
FIX_ONLY: dict[str, tuple[str, ...]] = {"make-dynamic": ("dynamic",)}
