"""Which modules get a compile check (`exportlens.compile`, `--compile`; docs/compile.md).

`auto`: those the file compiles (discovery/compile_calls.py); `off`: none (a class only compiled is
then not checked at all: it is still never judged as an export); `all`: also every other module
with inputs, as if compiled with `torch.compile(model)`, each as its own `<name>@compile` module.
"""

from __future__ import annotations

import dataclasses

from ..discovery import Subject

AS_COMPILED = {"fullgraph": False, "dynamic": None}  # `torch.compile(model)`, nothing more said


def with_compile_checks(subjects: list[Subject], choice: str) -> list[Subject]:
    if choice == "off":
        return [t for t in subjects if t.compile is None]
    if choice != "all":
        return subjects
    compiled = {t.class_name for t in subjects if t.compile is not None}
    added = [
        dataclasses.replace(t, name=f"{t.name}@compile", compile=dict(AS_COMPILED))
        for t in subjects
        if t.compile is None
        and t.part_of is None
        and t.inputs_kind != "none"
        and t.class_name not in compiled
    ]
    return subjects + added
