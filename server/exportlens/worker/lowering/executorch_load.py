"""The `.pte` loaded by ExecuTorch's runtime in the child: for the run against eager (executorch_run.py)
and the blame's variants (executorch_blame.py)."""

from __future__ import annotations

from typing import Any


class Loaded:
    """A loaded `forward` with its program: ExecuTorch's `Method` does not keep the `Program` (which
    holds the `.pte`'s bytes and the method's memory) alive, and one run after the program was
    collected reads freed memory ("Attempted to resize a static tensor. Expected shape (21946, ...)")."""

    def __init__(self, buffer: bytes) -> None:
        from executorch.runtime import Runtime

        self.program = Runtime.get().load_program(buffer)
        self.method = self.program.load_method("forward")

    def execute(self, inputs: list[Any]) -> Any:
        return self.method.execute(inputs)


def load(buffer: bytes) -> tuple[Loaded | None, str]:
    """The `forward` method, or None and the runtime's words for why it does not load."""
    try:
        return Loaded(buffer), ""
    except Exception as exc:  # noqa: BLE001 - RuntimeError("Failed to load method forward, error: 0x14")
        return None, f"{type(exc).__name__}: {str(exc).strip()[:400]}"
