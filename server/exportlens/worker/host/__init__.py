"""The long-lived worker process: its start (`main.py`), the loop that reads jobs and forks their
children (`loop.py`, `children.py`), warm spare children (`spare.py`), the warm-up between jobs
(`warmup.py`, `torch_state.py`).  Nothing below imports it.
"""
