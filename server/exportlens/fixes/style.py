"""Which dynamic-shapes API a file writes, so a fix writes the same one.

`torch.export.Dim` works on every torch ExportLens supports; torch 2.14+ also take the spec API of
`torch.fx.experimental.dynamic_spec` (`ShapesSpec`, `ParamsSpec`, `TensorSpec`, `ShapeVar`),
which torch documents as the recommended way going forward.  A file that already uses the spec
API runs on a torch that has it: its fixes use it too; any other file gets `Dim`.
"""

from __future__ import annotations

import ast

from .edits import Edit, last_import_line

SPEC_MODULE = "torch.fx.experimental.dynamic_spec"
SPEC_NAMES = ("ShapesSpec", "ParamsSpec", "TensorSpec", "ShapeVar")


def uses_spec_api(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == SPEC_MODULE:
            return True
        if isinstance(node, ast.Attribute) and node.attr in ("ShapesSpec", "ParamsSpec"):
            return True
    return False


def spec_imports(tree: ast.Module) -> list[Edit]:
    """One `from torch.fx.experimental.dynamic_spec import ...` for the spec names not yet bound."""
    bound = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    missing = [name for name in SPEC_NAMES if name not in bound]
    if not missing:
        return []
    line = last_import_line(tree)
    return [Edit(line, line, f"from {SPEC_MODULE} import {', '.join(missing)}\n")]


def tensor_spec(name: str, dim: int, rank: int) -> str:
    """`TensorSpec([ShapeVar("x_dim0"), None])`: dim `dim` dynamic, the others static (None)."""
    dims = [f'ShapeVar("{name}_dim{dim}")' if d == dim else "None" for d in range(rank)]
    return f"TensorSpec([{', '.join(dims)}])"
