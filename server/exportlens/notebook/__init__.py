"""Jupyter notebooks: the code cells as one `Document`, and what of them a check runs.

cells.py joins the code cells (magics made inert) and maps lines both ways; runs.py decides, on the
one parse of the joined text, which statements run (definitions everywhere, the export cell as a
script) and blanks the rest; ipynb.py reads a `.ipynb` file. The `Document` a notebook makes
carries the text the worker runs, with every line where it is in its cell.
"""

from .cells import Cell, Notebook
from .ipynb import read_ipynb
from .runs import notebook_document

__all__ = ["Cell", "Notebook", "notebook_document", "read_ipynb"]
