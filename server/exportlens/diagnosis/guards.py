"""Pick the shape guard behind a constraint violation from the worker's `guard_sites`.

torch says *which* Dim broke ("batch became the constant 8", "bx and by must
be equal") but, in non-strict mode, not where; the worker re-ran the export
recording each guard's user frames.  The culprit is the first guard of the
matching shape (equality with a constant, between two symbols, or a bound)
on an input dimension.
"""

from __future__ import annotations

import re

from ..worker.wire.records import FailureRecord, Frame, GuardSite
from .guard_value import from_message, parsed_guard, pins, printed_guards, signature, splits
from .kinds import Kind

_WANTED = {
    "dim-specialized": ("eq-const",),
    "dim-example-too-small": ("eq-const",),
    "dim-range-narrowed": ("range",),
    "dims-must-be-equal": ("eq-sym",),
}
_TEXT_FRAME = re.compile(r'File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<name>\S+)')
_SYMBOLS = re.compile(r"\b[su]\d+\b")
_EQUAL = re.compile(r"^Eq\((s\d+), (s\d+)\)$")


def guard_frames(record: FailureRecord, kind: Kind) -> list[Frame]:
    """User frames (outermost first) of the guard that caused the violation, else [].

    A Dim pinned to a value also gets the smallest size the lower bounds recorded on its symbols
    allow (`fix["min_size"]`: a conv's kernel), what keeping it dynamic needs anyway."""
    frames = _guard_frames(record, kind)
    value = kind.fix.get("value")
    if kind.code == "dim-specialized" and isinstance(value, int) and frames:
        sites = list(record.get("guard_sites") or [])
        site = next((s for s in sites if any(f is frames[-1] for f in s.get("frames") or [])), None)
        lowest = _lowest(sites, set((site.get("sources") or {}).keys()), value) if site else None
        if lowest is not None:
            kind.fix["min_size"] = lowest
    return frames


def _guard_frames(record: FailureRecord, kind: Kind) -> list[Frame]:
    wanted = _WANTED.get(kind.code, ("eq-const", "eq-sym", "range"))
    sites = list(record.get("guard_sites") or [])
    source = str(kind.fix.get("source") or "")
    if kind.fix.get("multiple_of"):
        # A divisibility guard (`Mod(s0, 8) == 0`): the line that splits the size into pieces.
        for site in sites:
            names = [name for names in (site.get("sources") or {}).values() for name in names]
            expr = str(site.get("expr"))
            # Only a guard that asks for the multiple itself: torch 2.10's max_pool2d records an
            # evenness `Mod(s0 - 2, 2)` long before the skip connection that needs 16.
            if "Mod(" in expr and site.get("frames") and splits(expr, int(kind.fix["multiple_of"])):
                if not source or any(_same_source(source, name) for name in names):
                    return [f for f in site["frames"] if f.get("line")]
    if truncated := _truncation_site(record, sites, source):
        return truncated
    if solver := str(kind.fix.get("solver_guard") or ""):
        # The solver rewrote the guard in its own variable: the equality sharing most of its numbers
        # (the view's `512*... == 512`, not the pooling's `... == 1` before it); on a tie the one
        # sharing the larger numbers (torch 2.10 also records the pooling's `Mod(..., 4)`).
        numbers = _numbers(solver)
        equalities = [s for s in sites if s.get("frames") and s.get("kind") in ("eq-const", "eq-sym")]

        def shared(site: GuardSite) -> tuple[int, int]:
            common = numbers & _numbers(str(site.get("expr")))
            return len(common), max((int(n) for n in common), default=0)

        if equalities:
            site = max(equalities, key=shared)  # the first of the best
            kind.fix["site_guard"] = str(site.get("expr"))
            kind.fix["sources"] = [n for names in (site.get("sources") or {}).values() for n in names]
            return [f for f in site["frames"] if f.get("line")]
    printed = _printed_site(record, kind, sites, source)
    if printed:
        return printed
    value = kind.fix.get("value")
    if kind.code == "dim-specialized" and source and isinstance(value, int):
        # The guard after which the Dim has one value left (`(rows // 2) == 3` at the loop, not the
        # earlier ones that only restrict it: `rows` even, at the reshape), with the guards before
        # it: `if npatch == N and w == h` leaves 56 only with the patch size's `h % 14 == 0`.
        if narrowing := _narrowed_to(sites, source, value):
            return narrowing
        for site in sites:
            symbols = [
                s
                for s, names in (site.get("sources") or {}).items()
                if any(_same_source(source, n) for n in names)
            ]
            if site.get("frames") and any(pins(str(site.get("expr")), s, value) for s in symbols):
                return [f for f in site["frames"] if f.get("line")]
    for site in sites:
        if site.get("kind") not in wanted or not site.get("frames"):
            continue
        sources = [name for names in (site.get("sources") or {}).values() for name in names]
        if source and not any(_same_source(source, name) for name in sources):
            continue
        if (
            kind.code == "dim-specialized"
            and str(kind.fix.get("value")) not in str(site.get("expr"))
            and not re.search(r"\d", str(site.get("expr")))
        ):
            continue
        return [f for f in site["frames"] if f.get("line")]
    return _message_stack(record)


def _truncation_site(record: FailureRecord, sites: list[GuardSite], source: str) -> list[Frame]:
    """An `int()` of a size computed as a float (Swin's `B = int(windows.shape[0] / (H * W / ...))`):
    strict keeps it symbolic, `math.trunc(...)` in every guard it prints, each logged at a view that
    uses the int later; the line to change is the `int()`, where the re-run's `TruncToInt` guard is."""
    if "math.trunc(" not in str(record.get("message", "")):
        return []
    for site in sites:
        if "TruncToInt(" in str(site.get("expr")) and site.get("frames") and _of_source(site, source):
            return [f for f in site["frames"] if f.get("line")]
    return []


def _narrowed_to(sites: list[GuardSite], source: str, value: int) -> list[Frame]:
    """Frames of the first site after which, with every site before it, only `value` is left for
    the Dim of `source` (and the symbols a site equates with it: `Eq(s0, s1)`)."""
    equal = _same_as(
        sites,
        {
            s
            for site in sites
            for s, names in (site.get("sources") or {}).items()
            if any(_same_source(source, n) for n in names)
        },
    )
    if not equal:
        return []
    probes = {value * k + j for k in (2, 3, 5) for j in (0, 1)}
    alive = set(range(2, max(2 * value, 64) + 1)) | probes
    for site in sites:
        expr = str(site.get("expr"))
        if not set(_SYMBOLS.findall(expr)) <= equal:
            continue
        guard = parsed_guard(expr)
        alive = {v for v in alive if guard.holds(v) is not False}
        if alive == {value}:
            return [f for f in site.get("frames") or [] if f.get("line")]
    return []


def _lowest(sites: list[GuardSite], symbols: set[str], value: int) -> int | None:
    """The smallest size the lower bounds recorded on `symbols` allow (`s53 >= 6` at a conv with a
    kernel of 6), when above torch's own 2 and below the pinned value."""
    if not symbols:
        return None
    bounds = [
        parsed_guard(str(site.get("expr")))
        for site in sites
        if site.get("kind") == "range" and set(_SYMBOLS.findall(str(site.get("expr")))) <= symbols
    ]
    if not bounds:
        return None
    lowest = next((v for v in range(2, value + 1) if all(b.holds(v) is not False for b in bounds)), None)
    return lowest if lowest is not None and 2 < lowest < value else None


def _same_as(sites: list[GuardSite], symbols: set[str]) -> set[str]:
    """`symbols` and every symbol a site's plain equality (`Eq(s1, s2)`) ties to them."""
    pairs = [m.groups() for site in sites if (m := _EQUAL.match(str(site.get("expr"))))]
    grown = set(symbols)
    while True:
        more = {b for a, b in pairs if a in grown} | {a for a, b in pairs if b in grown}
        if more <= grown:
            return grown
        grown |= more


def _printed_site(
    record: FailureRecord, kind: Kind, sites: list[GuardSite], source: str
) -> list[Frame] | None:
    """The first site (in the order the code ran) of a guard torch's message names as failing.

    The earlier guards of the same size are those it passes (`h // 2 != 1` at a pooling); the
    failing one is at the line that needs it (`torch.cat` of sizes that must match, `seq != 32`).
    A Dim torch wants as a multiple: the guard that asks for the multiple, among the failing ones.
    """
    if kind.code != "dim-range-narrowed":
        return None
    message = str(record.get("message", ""))
    dim = kind.fix.get("dim")
    wanted = {
        sig
        for name, _, guard in printed_guards(message)
        if name == dim and (sig := signature(from_message(guard))) is not None
    }
    factor = kind.fix.get("multiple_of")
    matching = [
        site
        for site in sites
        if site.get("frames") and _of_source(site, source) and signature(str(site.get("expr"))) in wanted
    ]
    if isinstance(factor, int):
        matching = [s for s in matching if splits(str(s.get("expr")), factor)] or matching
    return [f for f in matching[0]["frames"] if f.get("line")] if matching else None


def _numbers(expr: str) -> set[str]:
    return set(re.findall(r"(?<![\w.])\d+", expr))


def _of_source(site: GuardSite, source: str) -> bool:
    names = [name for names in (site.get("sources") or {}).values() for name in names]
    return not source or any(_same_source(source, name) for name in names)


def _same_source(a: str, b: str) -> bool:
    """L['x'].size()[0] in the message vs the guard's sources (strict names them flat_args)."""
    return a == b or a.split(".")[-1] == b.split(".")[-1]


def _message_stack(record: FailureRecord) -> list[Frame]:
    """Strict prints a "User stack:" for some violations: frames without columns."""
    message = str(record.get("message", ""))
    _, found, rest = message.partition("User stack:")
    if not found:
        return []
    rest = rest.split("Suggested fixes:")[0]
    frames: list[Frame] = [
        {"path": m["path"], "line": int(m["line"]), "name": m["name"]} for m in _TEXT_FRAME.finditer(rest)
    ]
    return [f for f in frames if "/torch/" not in str(f["path"]) and "site-packages" not in str(f["path"])]
