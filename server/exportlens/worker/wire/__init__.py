"""The wire format: what the engine and the worker exchange, and the only part of `worker/` the
rest of ExportLens imports (tests/test_layers.py).

`protocol.py` declares the messages (engine <-> worker <-> job child) and `records.py`,
`compile_records.py` the records a job reports in them; `shapes.py` checks a decoded message
against its declaration; `shared.py` holds the few constants both ends use; `boot.py` is the
`python -c` program that starts worker code by file location.  Stdlib only.
"""
