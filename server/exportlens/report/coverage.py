"""What a run checked: every module the files define, checked (on real, recorded or guessed
inputs, said which) or not checked with why (issue 40, item 3).

A module counts once per file, whatever its tracers. One that ran is checked (and flagged when an
error or a warning names it); one that did not
(`skipped`) is not, with the reason its finding gives (no example inputs, its inputs or its
`__init__` raised, nothing an export called) and what would make it checkable. A run that found
modules and checked none says so, and exits with `--unchecked-exit` (3 by default: whether they
export is not known, as after a timeout).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..findings import FileResult, Finding, ModuleResult
from .identity import module_identity
from .paths import display_path

# Findings that say why a module was not checked, in the order a reason is taken.
WHY_NOT = (
    "no-example-inputs",
    "compile-not-checked",
    "module-init-error",
    "inputs-error",
    "not-a-module",
    "user-exit",
)
REAL = ("export-call", "example-inputs", "compile-call")
UNCALLED = "no export or call of the file reaches it (a part of a module that was not checked)"


@dataclass
class Coverage:
    real: list[str] = field(default_factory=list)  # "model.py:GPT", checked on the code's own inputs
    # a part: on what its parent's export gave it, or traced inside the module that ran with it
    recorded: list[str] = field(default_factory=list)
    guessed: list[str] = field(default_factory=list)  # on inputs inferred from its first layer
    unchecked: list[tuple[str, str]] = field(default_factory=list)  # ("model.py:GPT", why)
    flagged: list[str] = field(default_factory=list)  # checked, with an error or a warning

    @property
    def checked(self) -> int:
        return len(self.real) + len(self.recorded) + len(self.guessed)

    @property
    def nothing_checked(self) -> bool:
        return bool(self.unchecked) and not self.checked


def coverage(results: list[FileResult], cwd: Path) -> Coverage:
    found = Coverage()
    # (file, class) -> the module whose check ran with it inside (worker's module tree, covered.py)
    inside = {
        (c["file"], c["class"]): m.name.partition("@")[0]
        for r in results
        for m in r.modules
        if m.tree and m.status != "skipped"
        for c in (m.tree["root"], *m.tree["parts"])
    }
    for result, name, statuses, flagged in _modules(results):
        label = f"{display_path(result.path, cwd)}:{name.partition('@')[0]}"
        ran = [inputs for status, inputs in statuses if status != "skipped"]
        if flagged and ran and label not in found.flagged:
            found.flagged.append(label)
        if not ran and (owner := inside.get((result.path, name.partition("@")[0]))) is not None:
            found.recorded.append(f"{label} (inside {owner})")
        elif not ran:
            found.unchecked.append((label, _why(result.diagnostics, name)))
        elif any(i in REAL for i in ran):
            found.real.append(label)
        elif "recorded" in ran:
            found.recorded.append(label)
        else:
            found.guessed.append(label)
    return found


def _modules(results: list[FileResult]) -> list[tuple[FileResult, str, list[tuple[str, str]], bool]]:
    """Each module once (report/identity.py), under the file that defines it when that file is in
    the run: (its result, its name, (status, inputs) of each run of it in any file, whether an error
    or a warning names it)."""
    merged: dict[tuple[str, str, str], tuple[FileResult, str, list[tuple[str, str]], bool]] = {}
    for result in results:
        said = {f.module for f in result.diagnostics if f.module and f.severity in ("error", "warning")}
        runs: dict[str, list[ModuleResult]] = {}
        for m in result.modules:
            runs.setdefault(m.name, []).append(m)
        for name, modules in runs.items():
            where = next((module_identity(result, m) for m in modules if m.tree), None)
            key = (*(where or (result.path, name.partition("@")[0])), name.partition("@")[2])
            statuses: list[tuple[str, str]] = [(m.status, m.inputs) for m in modules]
            before = merged.get(key)
            if before is None:
                merged[key] = (result, name, statuses, name in said)
                continue
            # the defining file's entry names the module; else the first file that reports it
            home = where is not None and where[0] == result.path
            owner, own_name = (result, name) if home else (before[0], before[1])
            merged[key] = (owner, own_name, before[2] + statuses, before[3] or name in said)
    return list(merged.values())


def _why(findings: list[Finding], module: str) -> str:
    said = {f.code: f for f in findings if f.module == module and f.code in WHY_NOT}
    for code in WHY_NOT:
        if code in said:
            first = said[code].message.splitlines()[0] if said[code].message else ""
            return f"{first[:400]} [{code}]"  # why, and what makes it checkable
    return UNCALLED


def coverage_lines(found: Coverage) -> list[str]:
    """The summary's lines: the counts, then each module not checked with why."""
    total = found.checked + len(found.unchecked)
    if not total:
        return []
    how = [
        f"{len(kind)} {word}"
        for kind, word in (
            (found.real, "on their own inputs"),
            (found.recorded, "as parts"),
            (found.guessed, "on guessed inputs"),
        )
        if kind
    ]
    head = f"{total} module(s): {found.checked} checked" + (f" ({', '.join(how)})" if how else "")
    head += f", {len(found.flagged)} with findings" if found.flagged else ""
    head += f", {len(found.unchecked)} not checked" if found.unchecked else ""
    lines = [head]
    if found.nothing_checked:
        lines.append("exportlens: nothing was checked: no module had inputs ExportLens could build (below)")
    lines += [f"  not checked: {label}: {why}" for label, why in found.unchecked]
    return lines
