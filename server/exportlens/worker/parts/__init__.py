"""A module's parts: the tree of classes a job exports (`module_tree.py`) and the inputs and Dims
each part gets when the whole is exported (`part_inputs.py`, `part_dims.py`), so that a part can be
exported on its own.  Imports `wire/` and `core/` only.
"""
