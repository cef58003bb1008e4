"""Turn a failure record from the worker into findings on the user's lines.

The worker (which has torch) reduces an exception to a JSON *failure record*
(see `exportlens.worker.capture.failure`); this package, which never imports torch,
maps records to stable codes, ranges and messages.  Keeping the mapping here
lets tests feed recorded texts from older torch versions through it.
"""

from __future__ import annotations

from .context import DiagnosisContext
from .mapping import diagnose

__all__ = ["DiagnosisContext", "diagnose"]
