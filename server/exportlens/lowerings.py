"""Where a program goes after `torch.export`: the one declaration of the lowerings (issue 17).

The setting `exportlens.targets`, the CLI's `--target` and the job's `targets` (the words users and
the wire see) all take these names; docs/targets.md says what each checks.
"""

from __future__ import annotations

LOWERINGS = ("export", "core-aten", "onnx", "aoti")
# Cheap enough to run on every check once enabled; `aoti` compiles C++: a command / CLI flag only.
ON_CHECK = ("export", "core-aten", "onnx")
ON_DEMAND = ("aoti",)
# An AOTInductor job compiles C++ (g++, tens of seconds): its timeout, not the check's.
AOTI_TIMEOUT_SECONDS = 600.0
