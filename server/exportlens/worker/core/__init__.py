"""What the worker and each job child both build on: the export call (`attempt.py`), the time a
job has (`time_limit.py`) and what its extra passes may spend of it (`budget.py`), and the process
hygiene of the worker and its children (`isolation.py`).  Imports only `wire/`.
"""
