"""Typed configuration, section `exportlens`: what a check depends on, declared once.

The language server applies it live without a restart (lsp/client_settings.py turns what the
client sends into `Settings`); the CLI's flags take their defaults from it.

Each setting is declared once, here: a field of `Settings` whose metadata is its `Spec`
(wire name, JSON type, allowed values, what it is, its `exportlens check` flag and its VS Code
setting). `package.json`, `extension/README.md`, the LSP README, `extension/src/settings.ts`
and the CLI are compared with `SPECS` by tests/lsp/test_settings_declared_once.py.

Adding a setting: its field here; the test then names each place that lacks it, with the
expected text (package.json entry, both README rows). A VS Code setting also needs its line in
settings.ts (and its unit test) and protocol.ts `ServerSettings`; a CLI flag, its `Spec.cli`
and the argument in cli.py (default `DEFAULT.<field>`). Using it is the code it changes.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Literal

from ..codes import CODES
from ..lowerings import LOWERINGS
from ..spelling import did_you_mean

MODES = ("non-strict", "strict", "both")
RUN_ON = ("type", "save")
DEVICES = ("fake", "real", "cpu")  # worker/job/devices.py
COMPILE_CHOICES = ("auto", "all", "off")  # check/compiled.py: which modules get a compile check
QUANTIZE = ("none", "xnnpack")  # worker/lowering/quantize.py: the executorch target's pt2e flow
LEVELS = ("error", "warning", "information", "hint", "off")  # a code's configured severity
# VS Code settings that are the client's alone (vscode-languageclient's LSP trace).
CLIENT_ONLY = ("trace.server",)


@dataclass(frozen=True)
class Client:
    """The setting as VS Code shows it (package.json, extension README, settings.ts), where it
    differs from the server's: `interpreter` resolves to `python`, mode `auto` is `null`."""

    description: str
    name: str | None = None  # None: the server's name
    default: Any = ...  # ...: the server's default
    enum: tuple[str, ...] | None = None  # None: the server's


@dataclass(frozen=True)
class Spec:
    type: str  # JSON type: "string", "integer", "number", "boolean" or "array" (of `enum` strings)
    values: str  # what the server accepts and what it means: the LSP README's "values" column
    nullable: bool = False
    enum: tuple[str, ...] = ()
    minimum: float | None = None
    exclusive: bool = False  # the minimum itself is not allowed
    results: bool = False  # export results depend on it: a change drops cached results
    cli: str | None = None  # the `exportlens check` flag (a store_true flag sets the opposite)
    toml: str | None = None  # its key in pyproject.toml's `[tool.exportlens]` (config/project.py)
    items: Literal["", "code", "glob"] = ""  # an array's or an object's entries: codes, globs
    client: Client | None = None  # None: not a VS Code setting (set by the extension, or not at all)
    # filled in by `SPECS` from the field
    name: str = ""
    field: str = ""
    default: Any = None

    def accepts(self, value: Any) -> bool:
        return self.why_not(value) is None

    def why_not(self, value: Any) -> str | None:
        """None if `value` is allowed, else what is allowed (for an error message)."""
        if self.type == "object":
            return _why_not_levels(value)
        if self.type == "array":
            if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
                return "a list of strings"
            unknown = [
                v
                for v in value
                if (self.enum and v not in self.enum) or (self.items == "code" and v not in CODES)
            ]
            if unknown:
                allowed = ", ".join(self.enum) if self.enum else "the codes of docs/codes.md"
                known = self.enum or tuple(CODES)
                named = ", ".join(f"{v!r}{did_you_mean(v, known)}" for v in unknown)
                return f"unknown {named}: one of {allowed}"
            return None
        return None if self._accepts_scalar(value) else self.values

    def _accepts_scalar(self, value: Any) -> bool:
        if value is None:
            return self.nullable
        if isinstance(value, bool) != (self.type == "boolean"):
            return False
        if not isinstance(value, _PY_TYPES.get(self.type, bool)):
            return False
        if self.enum and value not in self.enum:
            return False
        if self.minimum is not None:
            return bool(value > self.minimum if self.exclusive else value >= self.minimum)
        return True


_PY_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": (int, float)}


def _why_not_levels(value: Any) -> str | None:
    """A code -> severity table (`severity`): registered codes, known levels."""
    if not isinstance(value, (dict, tuple)):
        return "a table of code = level"
    pairs = value.items() if isinstance(value, dict) else value
    for code, level in pairs:
        if code not in CODES:
            return f"unknown code {code!r}{did_you_mean(code, CODES)}: the codes of docs/codes.md"
        if level not in LEVELS:
            return f"{code} = {level!r}: one of {', '.join(LEVELS)}"
    return None


def _setting(default: Any, spec: Spec) -> Any:
    return dataclasses.field(default=default, metadata={"spec": spec})


def _list_setting(key: str, items: Literal["code", "glob"], values: str, description: str) -> Any:
    """A list, empty by default, set alike everywhere: `--<key>` (repeatable), `<key>` in
    pyproject.toml, and the VS Code setting described by `description`."""
    client = Client(description, default=[])
    return _setting((), Spec("array", values, items=items, cli=f"--{key}", toml=key, client=client))


@dataclass(frozen=True)
class Settings:
    mode: str | None = _setting(
        None,
        Spec(
            "string",
            '`"non-strict"`, `"strict"`, `"both"`, `null`: the export call\'s `strict=`, '
            "else non-strict (as the CLI)",
            nullable=True,
            enum=MODES,
            results=True,
            cli="--mode",
            toml="mode",
            client=Client(
                "Which torch.export tracer to check with: `auto` (the file's export call's `strict=`, "
                "else non-strict), `non-strict`, `strict` or `both`.",
                default="auto",
                enum=("auto", *MODES),
            ),
        ),
    )
    run_on: str = _setting(
        "type",
        Spec(
            "string",
            '`"type"`, `"save"`',
            enum=RUN_ON,
            client=Client(
                "When to export the modules of an open file: `type` (after `debounceMs`) or `save`."
            ),
        ),
    )
    debounce_ms: int = _setting(
        300,
        Spec(
            "integer",
            "int ≥ 0",
            minimum=0,
            client=Client("Milliseconds of quiet typing before a check starts (runOn: type)."),
        ),
    )
    timeout_seconds: float = _setting(
        30.0,
        Spec(
            "number",
            "number > 0, per export",
            minimum=0,
            exclusive=True,
            cli="--timeout",
            toml="timeout",
            client=Client(
                "Time limit of one module's export, in seconds. Once the export has answered, the passes "
                "after it may take up to twice what it took, the check at most twice this limit in all "
                "(docs/codes.md#export-timeout)."
            ),
        ),
    )
    memory_limit_mb: int | None = _setting(
        None,
        Spec(
            "integer",
            "int ≥ 0 or `null` (0, `null`: no cap)",
            nullable=True,
            minimum=0,
            cli="--memory-limit",
            toml="memory-limit",
            client=Client("Address-space cap of one export, in MB (0: none).", default=0),
        ),
    )
    python: str | None = _setting(
        None,
        Spec(
            "string",
            "interpreter with torch for the worker, or `null` (the server's); a change restarts the engine",
            nullable=True,
            results=True,
            cli="--python",
            client=Client(
                "Python interpreter with torch, used for the server and for exports. Empty: the first "
                "with torch ≥ 2.10 of the Python Environments extension's, the Python extension's, the "
                "workspace's `.venv`/`venv` and `python3` on PATH. Ignored in untrusted workspaces unless "
                "set in your user settings.",
                name="interpreter",
                default="",
            ),
        ),
    )
    all_failures: bool = _setting(
        True,
        Spec(
            "boolean",
            "bool",
            results=True,
            cli="--first-failure-only",
            toml="all-failures",
            client=Client("Report every export failure of a module, not only the first one."),
        ),
    )
    trusted: bool = _setting(True, Spec("boolean", "bool; `false` runs no user code", results=True))
    export_sites: bool = _setting(
        True, Spec("boolean", "bool: use export calls found in other workspace files")
    )
    meta_above_mb: float = _setting(
        1024.0,
        Spec(
            "number",
            "number ≥ 0: models whose weights exceed this many MB export on the meta device "
            "(nothing allocated); 0 = never",
            minimum=0,
            results=True,
            cli="--meta-above",
            toml="meta-above",
            client=Client(
                "Models whose weights exceed this many MB are exported on the meta device: same graph and "
                "findings, no weights allocated (a .pt2 cannot be saved). 0: never."
            ),
        ),
    )

    device: Literal["fake", "real", "cpu"] = _setting(
        "fake",
        Spec(
            "string",
            '`"fake"`, `"real"`, `"cpu"`: where tensors the code puts on a GPU go (docs/devices.md)',
            enum=DEVICES,
            results=True,
            cli="--device",
            toml="device",
            client=Client(
                'Where tensors your code puts on a GPU (`.cuda()`, `device="cuda"`, `mps`) go: `fake` '
                "(fake tensors on that device: no GPU touched, no memory), `real` (use the device), `cpu` "
                "(run them on the CPU, with real values)."
            ),
        ),
    )

    targets: tuple[str, ...] = _setting(
        ("export",),
        Spec(
            "array",
            "list of "
            + ", ".join(f'`"{t}"`' for t in LOWERINGS)
            + ": where the program must lower after the export (docs/targets.md)",
            enum=LOWERINGS,
            results=True,
            cli="--target",
            toml="targets",
            client=Client(
                "Where your program ships, checked after each clean export: `export` (torch.export only), "
                "`core-aten` (the Core ATen opset ExecuTorch needs), `onnx` (torch.onnx.export, then ONNX "
                "Runtime against eager when installed), `executorch` (lowered with XNNPACK, the `.pte` run "
                "by ExecuTorch's runtime against eager, when installed), `coreml` (converted by "
                "coremltools, when installed; not run off macOS). `aoti` runs only from its command. "
                "See docs/targets.md.",
                default=["export"],
            ),
        ),
    )

    quantize: Literal["none", "xnnpack"] = _setting(
        "none",
        Spec(
            "string",
            '`"none"`, `"xnnpack"`: the `executorch` target lowers the program quantized by torchao\'s pt2e '
            "flow with the XNNPACK quantizer (docs/targets.md)",
            enum=QUANTIZE,
            results=True,
            cli="--quantize",
            toml="quantize",
            client=Client(
                "The `executorch` target's program: `none` (float, as exported) or `xnnpack` (int8, "
                "quantized by torchao's pt2e flow with the XNNPACK quantizer, calibrated on the example "
                "inputs): which lines stop delegating once quantized, and the `.pte`'s error against the "
                "float model. See docs/targets.md."
            ),
        ),
    )

    enable: bool = _setting(
        True,
        Spec(
            "boolean",
            "bool; `false`: no file is checked, nothing is shown",
            client=Client(
                "Check Python files and show what torch.export refuses (false: ExportLens is off)."
            ),
        ),
    )
    exclude: tuple[str, ...] = _list_setting(
        "exclude",
        "glob",
        "list of globs, relative to the project's folder: files never checked (docs/configuration.md)",
        "Files never checked: globs relative to the project's folder (the `pyproject.toml`'s, else "
        "the workspace folder), e.g. `generated/**`, `**/legacy_*.py`. Library code (the "
        "interpreter's prefix, site-packages, the standard library, torch) is never checked.",
    )
    ignore: tuple[str, ...] = _list_setting(
        "ignore",
        "code",
        "list of codes (docs/codes.md) never reported",
        "Codes never reported, e.g. `exported-in-training-mode` (docs/codes.md).",
    )
    severity: tuple[tuple[str, str], ...] = _setting(
        (),
        Spec(
            "object",
            'table of code = `"error"`, `"warning"`, `"information"`, `"hint"` or `"off"`: '
            "a code's severity instead of its own",
            items="code",
            toml="severity",
            client=Client(
                'A code\'s severity instead of its own: `{"exported-in-training-mode": "off", '
                '"side-effect-baked": "information"}`.',
                default={},
            ),
        ),
    )

    compile: Literal["auto", "all", "off"] = _setting(
        "auto",
        Spec(
            "string",
            '`"auto"`, `"all"`, `"off"`: which modules get a compile check (docs/compile.md)',
            enum=COMPILE_CHOICES,
            results=True,
            cli="--compile",
            toml="compile",
            client=Client(
                "Which modules get a compile check (torch.compile's graph breaks and recompiles, "
                "docs/compile.md): `auto` (those your code compiles: `torch.compile(model)`, "
                "`model.compile()`), `all` (every module with inputs, as if compiled), `off` (none)."
            ),
        ),
    )

    daemon: bool = _setting(
        True,
        Spec(
            "boolean",
            "bool: exports run in the worker daemon of the interpreter (docs/daemon.md): `exportlens "
            "check` starts one if none runs; the server uses a running one, else its own worker and "
            "starts one for later; `false`: a worker of the run's or server's own",
            cli="--no-daemon",
            toml="daemon",
            client=Client(
                "Export in the worker daemon of the interpreter, shared with other windows and the "
                "`exportlens check` CLI (a reopened window answers without importing torch again); "
                "off: a worker of this window's own."
            ),
        ),
    )
    daemon_idle_seconds: float = _setting(
        600.0,
        Spec(
            "number",
            "number > 0: seconds a worker daemon stays unused before it exits (docs/daemon.md)",
            minimum=0,
            exclusive=True,
            cli="--daemon-idle",
            toml="daemon-idle",
        ),
    )

    unchecked_exit: int = _setting(
        3,
        Spec(
            "integer",
            "int ≥ 0: the CLI's exit status when nothing was checked (no module could be, or no Python"
            " file was named) (0: pass)",
            minimum=0,
            cli="--unchecked-exit",
            toml="unchecked-exit",
        ),
    )

    force_exclude: bool = _setting(
        False,
        Spec(
            "boolean",
            "bool: a file named on the CLI's command line that `exclude` matches is skipped too (as "
            "ruff's `--force-exclude`; the pre-commit hooks pass it)",
            cli="--force-exclude",
            toml="force-exclude",
        ),
    )

    def results_key(self) -> tuple[Any, ...]:
        """What an export's result depends on besides the source: a change drops the cache."""
        return tuple(getattr(self, s.field) for s in SPECS if s.results)


def _camel(field: str) -> str:
    return re.sub(r"_([a-z])", lambda m: m.group(1).upper(), field)


SPECS: tuple[Spec, ...] = tuple(
    dataclasses.replace(f.metadata["spec"], name=_camel(f.name), field=f.name, default=f.default)
    for f in dataclasses.fields(Settings)
)
BY_NAME = {spec.name: spec for spec in SPECS}


def stored(spec: Spec, value: Any) -> Any:
    """An accepted value as `Settings` keeps it: hashable (a results key), numbers as float."""
    if spec.type == "object":
        return tuple(sorted(dict(value).items()))
    if spec.type == "array":
        return tuple(dict.fromkeys(value))
    return float(value) if spec.type == "number" else value
