"""What one job does, in its own child process: load the buffer (`loader.py`), build inputs
(`inputs.py`, `sizing.py`, `devices.py`), export, then the passes after it (`after_failure.py`,
`verify.py`, `compiled.py`, `gpu_path.py`); `child.py` runs them and reports.  Every module here
and below (`capture/`, `parts/`, `core/`, `wire/`) is imported by the worker before it forks
(host/warmup.py), so a job imports none of them itself.
"""
