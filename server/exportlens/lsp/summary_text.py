"""Human-readable pieces of an export summary (worker/capture/summary.py), shared by hover and lenses."""

from __future__ import annotations

import json
import urllib.parse
from typing import Any

from ..lowerings import label
from ..worker.wire.records import ExportSummary, LoweringResult
from .state import ModuleEntry

GRAPH_LINES = 20  # a hover is a glance: the link opens the rest
SHOW_GRAPH = "exportlens.showGraph"  # client-side command: opens the graph text beside the editor


def status_line(entry: ModuleEntry) -> str:
    if compiled := next((r.compiled for r in entry.results if r.compiled is not None), None):
        return compile_line(compiled)
    if entry.errors:
        return f"✗ {entry.errors} export issue{'s' if entry.errors != 1 else ''}"
    exported = [r for r in entry.results if r.status == "exported"]
    if exported and len(exported) == len(entry.results):
        ops = max(r.ops or 0 for r in exported)
        seconds = max(r.seconds for r in exported)
        refused = "".join(
            f" · ✗ {label(name)}: {n} issue{'s' if n != 1 else ''}" for name, n in entry.lowered.items()
        )
        # exportlens.quantize: the lens says which program the target's findings are of
        int8 = {
            label(t["target"]) for r in exported for t in r.lowerings if t.get("facts", {}).get("quantized")
        }
        quantized = "".join(f" · {name} int8" for name in sorted(int8))
        return f"✓ exports · {ops} ops · {seconds:.2f} s{refused}{quantized}"
    if any(r.status == "skipped" for r in entry.results) and entry.results:
        return "no example inputs"
    return "✗ " + ", ".join(sorted({r.status for r in entry.results})) if entry.results else "not checked"


def compile_line(counts: dict[str, Any]) -> str:
    """A compile check's lens: `⚡ 3 graphs · 2 breaks` (and recompiles, when a new size recompiles)."""
    graphs, breaks = int(counts.get("graphs") or 0), int(counts.get("breaks") or 0)
    text = f"⚡ {graphs} graph{'s' * (graphs != 1)} · {breaks} break{'s' * (breaks != 1)}"
    if recompiles := int(counts.get("recompiles") or 0):
        text += f" · recompiles on new sizes ({recompiles})"
    return text


def signature(graph: ExportSummary) -> list[str]:
    groups: dict[str, list[str]] = {}
    for spec in graph.get("inputs", []):
        kind = spec.get("kind", "")
        label = spec.get("name") if kind == "user_input" else spec.get("target") or spec.get("name")
        groups.setdefault(kind, []).append(f"`{label}`")
    titles = {
        "parameter": "Parameters",
        "buffer": "Buffers",
        "user_input": "User inputs",
        "constant_tensor": "Constants",
        "custom_obj": "Custom objects",
        "token": "Tokens",
    }
    out = []
    for kind, labels in groups.items():
        shown = ", ".join(labels[:12]) + (f" … (+{len(labels) - 12})" if len(labels) > 12 else "")
        out.append(f"{titles.get(kind, kind)} ({len(labels)}): {shown}")
    return out


def dynamic_dims(graph: ExportSummary) -> list[str]:
    dims = []
    for dim in graph.get("dynamic", []):
        high = "∞" if dim.get("max") is None else str(dim["max"])
        low = "0" if dim.get("min") is None else str(dim["min"])
        dims.append(f"`{dim['input']}.shape[{dim['dim']}] ∈ [{low}, {high}]`")
    return dims


def device_line(graph: ExportSummary) -> str:
    """Where the code's GPU tensors were (worker/job/devices.py); '' when it names no accelerator."""
    placement = graph.get("placement")
    devices = ", ".join(f"`{d}`" for d in placement["devices"]) if placement else ""
    if not placement or not devices:
        return ""
    if placement["fake"]:
        return f"Device: {devices} — fake tensors on it: no GPU used, nothing allocated"
    return f"Device: {devices} ({placement['policy']})"


def graph_excerpt(code: str) -> tuple[str, bool]:
    lines = code.strip("\n").splitlines()
    return "\n".join(lines[:GRAPH_LINES]), len(lines) > GRAPH_LINES


def command_link(title: str, command: str, args: list[Any]) -> str:
    return f"[{title}](command:{command}?{urllib.parse.quote(json.dumps(args))})"


LISTED = 4  # a list fact's items named in the hover


def lowering_line(result: LoweringResult) -> str:
    """One lowering's verdict and facts (docs/targets.md): `ONNX ✓ · opset 20 · 12 ops · 4.4 KB`."""
    name = label(result["target"])
    if "skipped" in result:
        return f"{name}: not checked ({result['skipped']})"
    verdict = "✓" if result["ok"] else "✗"
    pieces = [f"{name} {verdict}"] + [_fact(k, v) for k, v in result.get("facts", {}).items()]
    if "seconds" in result:
        pieces.append(f"{result['seconds']:.2f} s")
    return " · ".join(p for p in pieces if p)


def _fact(key: str, value: Any) -> str:
    """`model_bytes` 4461 -> `model 4.4 KB`, `compile_seconds` -> `compile 12.3 s`, else `key value`."""
    words = key.replace("_", " ")
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        shown = value[:LISTED]
        more = f" and {len(value) - LISTED} more" if len(value) > LISTED else ""
        return f"{words}: {', '.join(shown)}{more}"  # `portable ops: aten.cumsum.default`
    if isinstance(value, dict) and value and all(_is_number(v) for v in value.values()):
        return f"{words}: " + ", ".join(f"{k} {v}" for k, v in value.items())  # `backends: XnnpackBackend 3`
    if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
        return ""  # a node-by-node table (`placement`): the graph panel's, too long for a hover
    if key.endswith("_bytes") and isinstance(value, (int, float)):
        return f"{words.removesuffix(' bytes')} {_size(float(value))}"
    if key.endswith("_seconds") and isinstance(value, (int, float)):
        return f"{words.removesuffix(' seconds')} {value:.1f} s"
    if key == "opset":
        return f"opset {value}"
    if key == "ops":
        return f"{value} ops"
    if key == "quantized" and isinstance(value, str):
        return f"quantized ({value}, int8)"
    if key == "quantized_max_rel_error" and isinstance(value, (int, float)):  # of the output's range
        return f"int8 error {value:.1%} of the range"
    return f"{words} {value}"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _size(size: float) -> str:
    for unit in ("B", "KB", "MB"):
        if size < 1024:
            return f"{size:,.0f} {unit}" if unit == "B" else f"{size:,.1f} {unit}"
        size /= 1024
    return f"{size:,.1f} GB"
