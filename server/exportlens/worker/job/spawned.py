"""A job child started as a fresh interpreter, where `os.fork` is unavailable or unsafe (macOS).

Slower than a fork (torch is imported cold) but just as isolated: the job
arrives on stdin, the result leaves on the fd named in argv[4].
"""

from __future__ import annotations

import os
import sys

from ..wire import protocol
from .child import run_job_in_child


def main() -> None:
    job = protocol.decode_job(sys.stdin.buffer.read())
    result_fd = int(sys.argv[4])
    run_job_in_child(job, result_fd, os.dup(1), forked=False)  # its cache is not the worker's
