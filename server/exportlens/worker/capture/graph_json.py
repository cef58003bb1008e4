"""The exported program as a graph to draw (records.GraphView): what the "ExportLens: Graph" panel shows.

One entry per FX node, in graph order (which is data order): its kind (an input by the
signature's kind, an op, an output), op, inputs, output shape/dtype with symbolic dims by name,
the `nn_module_stack` path it was made in, and its site in the user's code with the user frames
of its stack. The branches of higher-order ops (cond, map, while_loop, ...) are walked too:
their nodes carry the branch they belong to. Bounded: NODE_LIMIT nodes, FRAME_LIMIT frames each.
Reads only what torch already computed (node.meta): a 2,000-node graph in tens of ms.
"""

from __future__ import annotations

import re
from typing import Any

from ..wire.records import GraphView, ViewBranch, ViewFrame, ViewNode

NODE_LIMIT = 5000
FRAME_LIMIT = 8
_FRAME = re.compile(r'File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<name>\S+)\n(?P<code>[^\n]*)')
_ROOT_PREFIX = re.compile(r"^L\['self'\]\.?|^_export_root\.?")
_INPUT_KINDS = {
    "PARAMETER": "parameter",
    "BUFFER": "buffer",
    "CONSTANT_TENSOR": "constant",
    "CUSTOM_OBJ": "constant",
    "TOKEN": "constant",
    "USER_INPUT": "user_input",
}


def graph_view(program: Any, path: str) -> GraphView:
    """Best effort: a node torch gave odd metadata must not turn an export into a failure."""
    try:
        return _Builder(program, path).build()
    except Exception as exc:  # noqa: BLE001
        error = f"{type(exc).__name__}: {exc}"[:500]
        return {"nodes": [], "branches": [], "modules": {}, "total": 0, "truncated": False, "error": error}


class _Builder:
    def __init__(self, program: Any, path: str) -> None:
        self.program, self.path = program, path
        self.nodes: list[ViewNode] = []
        self.branches: list[ViewBranch] = []
        self.total = 0
        signature = program.graph_signature
        self.input_kind = {
            getattr(s.arg, "name", ""): (_INPUT_KINDS.get(s.kind.name, "user_input"), s.target)
            for s in signature.input_specs
        }
        self.output_kind = [(s.kind.name.lower(), s.target) for s in signature.output_specs]
        self.modules: dict[str, str] = {}  # submodule path -> its class name

    def build(self) -> GraphView:
        self._walk(self.program.graph_module, prefix="", branch=None)
        return {
            "nodes": self.nodes,
            "branches": self.branches,
            "modules": self.modules,
            "total": self.total,
            "truncated": self.total > len(self.nodes),
        }

    def _walk(self, module: Any, prefix: str, branch: str | None) -> None:
        graphs = {
            n.name
            for n in module.graph.nodes
            if n.op == "get_attr" and _is_graph(getattr(module, str(n.target), None))
        }
        for node in module.graph.nodes:
            if node.name in graphs:
                continue  # a branch's graph: drawn as the branch group of the op that uses it
            if node.op == "output" and branch is None:
                self._outputs(node, prefix)
                continue
            self.total += 1
            if len(self.nodes) >= NODE_LIMIT:
                continue
            self.nodes.append(self._node(node, prefix, branch, graphs))
            if node.op == "call_function":
                self._branches(module, node, prefix)

    def _node(self, node: Any, prefix: str, branch: str | None, graphs: set[str]) -> ViewNode:
        kind, target = "op", None
        if node.op == "placeholder":
            kind, target = (
                self.input_kind.get(node.name, ("user_input", None))
                if branch is None
                else ("branch_input", None)
            )
        elif node.op == "output":
            kind = "branch_output"
        elif node.op == "get_attr":
            kind, target = "constant", str(node.target)
        entry: ViewNode = {
            "id": prefix + node.name,
            "name": node.name,
            "kind": kind,
            "op": _op_name(node),
            "inputs": [prefix + n.name for n in _input_nodes(node) if n.name not in graphs],
            "shape": _shape(node.meta.get("val")),
            "dtype": _dtype(node.meta.get("val")),
            "module": self._module_path(node.meta.get("nn_module_stack")),
            "branch": branch,
        }
        if target is not None:
            entry["target"] = str(target)
        entry.update(self._site(node.meta.get("stack_trace") or ""))  # type: ignore[typeddict-item]
        return entry

    def _branches(self, module: Any, node: Any, prefix: str) -> None:
        """cond's true/false graphs, map's body, while_loop's cond/body: one branch group each."""
        for arg in _input_nodes(node):
            sub = getattr(module, str(arg.target), None) if arg.op == "get_attr" else None
            if not _is_graph(sub):
                continue
            branch_id = f"{prefix}{node.name}/{arg.target}"
            self.branches.append({"id": branch_id, "op": prefix + node.name, "name": str(arg.target)})
            self._walk(sub, prefix=branch_id + "/", branch=branch_id)
            hop = next(n for n in reversed(self.nodes) if n["id"] == prefix + node.name)
            out = [n for n in self.nodes if n.get("branch") == branch_id and n["kind"] == "branch_output"]
            hop["inputs"].extend(n["id"] for n in out)

    def _outputs(self, node: Any, prefix: str) -> None:
        values = node.args[0] if node.args else ()
        for index, value in enumerate(values if isinstance(values, (list, tuple)) else (values,)):
            self.total += 1
            if len(self.nodes) >= NODE_LIMIT:
                continue
            kind, target = self.output_kind[index] if index < len(self.output_kind) else ("user_output", None)
            name = getattr(value, "name", None)
            entry: ViewNode = {
                "id": f"{prefix}output:{index}",
                "name": f"output {index}" if target is None else str(target),
                "kind": kind,
                "op": "output",
                "inputs": [prefix + name] if name else [],
                "shape": _shape(getattr(value, "meta", {}).get("val")),
                "dtype": _dtype(getattr(value, "meta", {}).get("val")),
                "module": [],
                "branch": None,
            }
            if target is not None:
                entry["target"] = str(target)
            self.nodes.append(entry)

    def _module_path(self, stack: Any) -> list[str]:
        """The submodules a node was made in, outermost first (`blocks.0`, `blocks.0.attn`), root left out."""
        path: list[str] = []
        for value in (stack or {}).values():
            fqn, cls = (value[0], value[1]) if isinstance(value, tuple) and len(value) > 1 else (value, "")
            fqn = _ROOT_PREFIX.sub("", str(fqn))
            if fqn and fqn not in path:
                path.append(fqn)
                self.modules.setdefault(fqn, str(getattr(cls, "__name__", cls)).rpartition(".")[2])
        return path

    def _site(self, trace: str) -> dict[str, Any]:
        """The user frames of a stack trace (outermost first) and the node's site among them:
        the innermost frame in the exported file, else the innermost user frame."""
        frames: list[ViewFrame] = []
        for match in _FRAME.finditer(trace):
            where = match["path"]
            if "/torch/" in where or where.startswith("<"):
                continue
            code = match["code"]
            stripped = code.strip()
            frames.append(
                {"path": where, "line": int(match["line"]), "name": match["name"], "code": stripped[:200]}
            )
        if not frames:
            return {}
        site = next((f for f in reversed(frames) if f["path"] == self.path), frames[-1])
        # torch keeps no columns: the client finds `code` on the line for the column range
        return {
            "path": site["path"],
            "line": site["line"],
            "code": site["code"],
            "stack": frames[-FRAME_LIMIT:],
        }


def _is_graph(value: Any) -> bool:
    return hasattr(value, "graph") and hasattr(value.graph, "nodes")


def _input_nodes(node: Any) -> list[Any]:
    """The nodes a node reads, in argument order, each once."""
    seen: dict[str, Any] = {}
    for value in node.all_input_nodes:
        seen.setdefault(value.name, value)
    return list(seen.values())


def _op_name(node: Any) -> str:
    if node.op != "call_function":
        return str(node.op)
    text = str(node.target)
    return text if text.startswith("aten.") else str(getattr(node.target, "__name__", text))


def _shape(value: Any) -> str:
    """`[s0, 16]`; a tuple of tensors `([2, 3], [2])`; a SymInt its expression; else ''."""
    if isinstance(value, (list, tuple)):
        parts = [_shape(v) for v in value[:8]]
        return "(" + ", ".join(p or "·" for p in parts) + (", …" if len(value) > 8 else "") + ")"
    shape = getattr(value, "shape", None)
    if shape is not None:
        return "[" + ", ".join(str(d) for d in shape) + "]"
    if type(value).__name__ in ("SymInt", "SymFloat", "SymBool"):
        return str(value)
    return ""


def _dtype(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        value = next((v for v in value if hasattr(v, "dtype")), None)
    dtype = getattr(value, "dtype", None)
    return str(dtype).removeprefix("torch.") if dtype is not None else ""
