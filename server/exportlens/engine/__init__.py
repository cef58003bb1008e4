"""The editor-agnostic engine: a warm worker process and jobs run in it."""

from .engine import Engine, EngineOptions
from .jobs import Job, JobOutcome

__all__ = ["Engine", "EngineOptions", "Job", "JobOutcome"]
