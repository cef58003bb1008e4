"""Warnings for what torch.export accepts but bakes in wrongly (side effects, train mode, ...).

`sites` lists the statements of what forward runs that export runs once and does not keep
(`classes` says which classes and what their `__init__` registers); `confirm` keeps a site only
when the export shows it mattered and is the entry point; `graph_facts` warns from facts of the
exported graph (train-mode layers, in-place writes to inputs).  A clean module gets none.
"""
