"""A `.ipynb` file on disk -> its cells (nbformat 4's JSON: each cell's `source` a string or a list
of lines)."""

from __future__ import annotations

import json
from typing import Any

from .cells import Cell


def read_ipynb(path: str) -> list[Cell]:
    """The notebook's cells; raises OSError, or ValueError when the file is no notebook."""
    with open(path, encoding="utf-8") as stream:
        data: Any = json.load(stream)
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise ValueError(f"{path} is not a Jupyter notebook (no `cells` list)")
    cells = []
    for index, raw in enumerate(data["cells"]):
        source = raw.get("source", "") if isinstance(raw, dict) else ""
        text = "".join(source) if isinstance(source, list) else str(source)
        cells.append(Cell(index, text, code=isinstance(raw, dict) and raw.get("cell_type") == "code"))
    return cells
