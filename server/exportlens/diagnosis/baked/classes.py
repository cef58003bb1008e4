"""The file's classes as the side-effect walk needs them: bases, parts, what `__init__` registers."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ...syntax import dotted, is_self
from .effects import TENSOR_FACTORIES

REGISTER = {"register_buffer", "register_parameter", "register_module", "add_module"}


@dataclass
class ClassInfo:
    registered: set[str]  # buffers, parameters, submodules: legitimate state
    init_values: dict[str, ast.expr]  # self.X = <expr> in __init__


def lineage(classes: dict[str, ast.ClassDef], name: str) -> list[ast.ClassDef]:
    """The class and its bases defined in the file, subclass first."""
    chain: list[ast.ClassDef] = []
    while name in classes and classes[name] not in chain:
        cls = classes[name]
        chain.append(cls)
        bases = [dotted(b) for b in cls.bases]
        name = next((b for b in bases if b in classes), "")
    return chain


def built_from(tree: ast.Module, class_name: str) -> list[str]:
    """`class_name` and the file's classes it uses, directly or through each other, in that order."""
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    order, todo = [class_name], [class_name]
    while todo:
        cls = classes.get(todo.pop())
        for node in ast.walk(cls) if cls is not None else ():
            if isinstance(node, ast.Name) and node.id in classes and node.id not in order:
                order.append(node.id)
                todo.append(node.id)
    return order


def class_info(init: ast.FunctionDef | ast.AsyncFunctionDef | None) -> ClassInfo:
    info = ClassInfo(set(), {})
    if init is None:
        return info
    for node in ast.walk(init):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in REGISTER:
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                info.registered.add(node.args[0].value)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and is_self(target.value):
                    info.init_values[target.attr] = node.value
                    if _builds_state(node.value):
                        info.registered.add(target.attr)
    return info


def _builds_state(value: ast.expr) -> bool:
    """`self.x = nn.Linear(...)` / `nn.Parameter(...)`: a submodule or parameter, kept by export."""
    if not isinstance(value, ast.Call):
        return False
    name = (dotted(value.func) or "").rpartition(".")[2]
    return name == "Parameter" or (name[:1].isupper() and name not in {"Tensor"})


def tensor_factory(value: ast.expr | None) -> bool:
    """`torch.zeros(...)` and friends in `__init__`: the attribute holds a tensor."""
    if not isinstance(value, ast.Call):
        return False
    name = dotted(value.func) or ""
    return name.startswith(("torch.", "th.")) and name.rpartition(".")[2] in TENSOR_FACTORIES
