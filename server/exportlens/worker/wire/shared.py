"""What the engine and the worker agree on besides the messages: the lines the worker says about
itself on stderr, and how far past its limit a job may run (the engine waits that long too)."""

from __future__ import annotations

# Said on stderr at each spare's fork (the engine counts them: WorkerProcess.spares_forked).
FORKED_LINE = "exportlens worker: spare forked"
# Said on stderr when the warm-up's last step is done (the engine counts it: WorkerProcess.warm).
WARM_LINE = "exportlens worker: warm-up done"
WALL_CAP = 4.0  # a job is stopped at this many times its limit in wall time, busy or not
# The limit scales with the module (budget.py `Budget.scaled`): once its first export has answered,
# the passes after it get up to PASSES_SHARE times what that export took, the job at most
# SCALE_CAP times its limit in all.
PASSES_SHARE = 2.0
SCALE_CAP = 2.0
