"""Every code is registered once, documented under its own heading, and every code the package
can emit is a registered one: checked on the docs and the source text, without torch."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import pytest

from exportlens.codes import CODES, FIX_ONLY, UnknownCodeError
from exportlens.findings import Finding, Range
from tests.paths import ROOT

PACKAGE = ROOT / "server" / "exportlens"
REGISTRY = PACKAGE / "codes"  # model.py, and one file per family of codes
DOCS = ROOT / "docs" / "codes.md"
# `## ` sections of docs/codes.md about something other than one code.
NON_CODE_HEADINGS = {"How the line is found"}
_CODE_SHAPE = re.compile(r"^[a-z]+(-[a-z]+)*$")


def doc_headings() -> list[str]:
    """The `## ` headings of docs/codes.md, outside code fences."""
    headings, fenced = [], False
    for line in DOCS.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("## "):
            headings.append(line[3:].strip())
    return headings


def test_every_registered_code_has_one_heading_and_nothing_else_does() -> None:
    headings = doc_headings()
    assert len(headings) == len(set(headings)), [h for h in headings if headings.count(h) > 1]
    assert NON_CODE_HEADINGS <= set(headings), "a non-code section was renamed: update NON_CODE_HEADINGS"
    documented = set(headings) - NON_CODE_HEADINGS
    assert sorted(set(CODES) - documented) == [], "registered but not documented in docs/codes.md"
    assert sorted(documented - set(CODES)) == [], "documented but not registered (or a non-code section)"


def index_rows() -> list[tuple[str, str, str, str]]:
    """(code, anchor, tracer, one line) of each row of docs/codes.md's index table."""
    row = re.compile(r"^\| \[([^\]]+)\]\(#([^)]+)\) \| ([^|]+) \| (.+) \|$", re.MULTILINE)
    return [
        (c, a, t.strip(), line.strip()) for c, a, t, line in row.findall(DOCS.read_text(encoding="utf-8"))
    ]


def test_the_index_table_links_every_code_to_its_anchor() -> None:
    rows = index_rows()
    assert all(text == CODES[text].anchor == anchor for text, anchor, _, _ in rows if text in CODES), rows
    assert sorted(text for text, *_ in rows) == sorted(CODES)


def test_each_code_has_its_anchors_heading() -> None:
    assert sorted(entry.anchor for entry in CODES.values()) == sorted(set(doc_headings()) - NON_CODE_HEADINGS)


def test_the_index_states_each_codes_tracer_as_registered() -> None:
    """The index's tracer column: strict / non-strict / both, `—` for none (the code's own, ExportLens's)."""
    stated = {code: None if tracer == "—" else tracer for code, _, tracer, _ in index_rows()}
    assert stated == {code: entry.tracer for code, entry in CODES.items()}


def test_the_index_notes_each_severity_but_error_as_registered() -> None:
    """`(warning)` / `(information)` in a row's one line: the severity, where it is not `error`."""
    for code, _, _, line in index_rows():
        noted = re.findall(r"\((warning|information|hint)\)", line)
        expected = [] if CODES[code].severity == "error" else [CODES[code].severity]
        assert noted == expected, (code, line)


def test_each_code_is_declared_once_and_well_formed() -> None:
    declared = [
        str(node.args[0].value)
        for path in sorted(REGISTRY.glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "_c"
        and isinstance(node.args[0], ast.Constant)
    ]
    assert sorted(declared) == sorted(CODES), "a code declared twice (the later one wins silently)"
    for entry in CODES.values():
        assert _CODE_SHAPE.match(entry.code), entry.code
        assert entry.why and entry.fix, entry.code
        assert entry.severity in ("error", "warning", "information", "hint"), entry.code
        assert entry.tracer in ("strict", "non-strict", "both", None), entry.code
        assert all(_CODE_SHAPE.match(kind) for kind in entry.fixes), entry.code


def test_a_finding_with_an_unregistered_code_or_severity_cannot_be_made() -> None:
    where = Range.of(0, 0, 0, 0)
    with pytest.raises(UnknownCodeError, match="'no-such-code' is not a registered diagnostic code"):
        Finding(path="m.py", range=where, severity="error", code="no-such-code", message="")
    with pytest.raises(ValueError, match="registered as 'warning'"):
        Finding(path="m.py", range=where, severity="error", code="input-mutated", message="")
    Finding(path="m.py", range=where, severity="warning", code="input-mutated", message="")


# --- Static scan: every string the package uses as a code -------------------------------------

Sites = dict[str, list[str]]  # code -> "file:line" where it is used


def _is_code_ref(node: ast.expr) -> bool:
    """`code` or `<anything>.code`: an expression holding a diagnostic code."""
    return (isinstance(node, ast.Name) and node.id == "code") or (
        isinstance(node, ast.Attribute) and node.attr == "code"
    )


class CodeScan:
    """Finds string literals in code positions: `code=` arguments, the `code` parameter of the
    package's functions and dataclasses (Finding, Kind, Fix, helpers) by position, assignments to
    `code`, comparisons with `code` / `.code`, and the keys of dicts looked up by a code.  Names
    resolve to module-level constants (`SIDE_EFFECT = "side-effect-baked"`)."""

    def __init__(self, files: list[Path]) -> None:
        self.trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in files}
        self.constants: dict[str, list[ast.expr]] = defaultdict(list)
        self.code_param: dict[str, set[int]] = defaultdict(set)  # callee name -> index of `code`
        for tree in self.trees.values():
            for stmt in tree.body:
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                    if isinstance(stmt.targets[0], ast.Name):
                        self.constants[stmt.targets[0].id].append(stmt.value)
            for node in ast.walk(tree):
                self._note_code_param(node)
        self.found: Sites = defaultdict(list)
        self.dynamic: list[str] = []  # codes built at run time (f-strings, `+`): cannot be checked

    def _note_code_param(self, node: ast.AST) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names = [a.arg for a in node.args.posonlyargs + node.args.args]
            if names[:1] in (["self"], ["cls"]):
                names = names[1:]
            if "code" in names:
                self.code_param[node.name].add(names.index("code"))
        elif isinstance(node, ast.ClassDef):
            fields = [
                s.target.id
                for s in node.body
                if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
            ]
            if "code" in fields:
                self.code_param[node.name].add(fields.index("code"))

    def run(self) -> CodeScan:
        for path, tree in self.trees.items():
            for node in ast.walk(tree):
                for expr, keys_only in self._code_positions(node):
                    self._collect(expr, f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}", keys_only)
        return self

    def _code_positions(self, node: ast.AST) -> list[tuple[ast.expr, bool]]:
        """Expressions that must evaluate to a code; True: a dict looked up by a code (its keys)."""
        out: list[tuple[ast.expr, bool]] = []
        if isinstance(node, ast.Call):
            out += [(k.value, False) for k in node.keywords if k.arg == "code"]
            callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            out += [(node.args[i], False) for i in self.code_param.get(callee, ()) if i < len(node.args)]
            func = node.func
            if (
                isinstance(func, ast.Attribute)
                and func.attr == "get"
                and node.args
                and _is_code_ref(node.args[0])
            ):
                out.append((func.value, True))
        elif isinstance(node, ast.Subscript) and _is_code_ref(node.slice):
            out.append((node.value, True))
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_is_code_ref(side) for side in sides):
                out += [(side, True) for side in sides if not _is_code_ref(side)]
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                out += self._assigned(target, node.value)
        return out

    def _assigned(self, target: ast.expr, value: ast.expr) -> list[tuple[ast.expr, bool]]:
        if _is_code_ref(target):
            return [(value, False)]
        if (
            isinstance(target, ast.Tuple)
            and isinstance(value, ast.Tuple)
            and len(target.elts) == len(value.elts)
        ):
            return [
                pair for t, v in zip(target.elts, value.elts, strict=True) for pair in self._assigned(t, v)
            ]
        return []

    def _collect(self, expr: ast.expr, where: str, keys_only: bool, depth: int = 0) -> None:
        def again(e: ast.expr, keys: bool = keys_only) -> None:
            self._collect(e, where, keys, depth + 1)

        if depth > 8:
            return
        if isinstance(expr, ast.Constant):
            if isinstance(expr.value, str):
                self.found[expr.value].append(where)
        elif isinstance(expr, ast.Name):
            for value in self.constants.get(expr.id, []):
                again(value)
        elif isinstance(expr, (ast.Tuple, ast.List, ast.Set)):
            for element in expr.elts:
                again(element)
        elif isinstance(expr, ast.Dict):  # looked up by a code: its keys; a value read: its values
            for part in expr.keys if keys_only else expr.values:
                if part is not None:
                    again(part)
        elif isinstance(expr, ast.IfExp):
            again(expr.body)
            again(expr.orelse)
        elif isinstance(expr, ast.BoolOp):
            for value in expr.values:
                again(value)
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "get":
            again(expr.func.value, False)  # `code = TABLE.get(key, default)`: a value or the default
            for default in expr.args[1:2]:
                again(default)
        elif isinstance(expr, ast.Subscript):
            again(expr.value, False)
        elif isinstance(expr, (ast.JoinedStr, ast.BinOp)):
            self.dynamic.append(where)


@pytest.fixture(scope="module")
def scan() -> CodeScan:
    return CodeScan(sorted(p for p in PACKAGE.rglob("*.py") if REGISTRY not in p.parents)).run()


def test_every_code_literal_in_the_package_is_registered(scan: CodeScan) -> None:
    unregistered = {c: sites for c, sites in scan.found.items() if c not in CODES and c not in FIX_ONLY}
    assert unregistered == {}, "used as a code but not in CODES (server/exportlens/codes/)"
    assert scan.dynamic == [], "a code built at run time cannot be checked: use a literal"


def test_every_registered_code_is_emitted_somewhere(scan: CodeScan) -> None:
    assert sorted(set(CODES) - set(scan.found)) == [], "registered, but no code of the package uses it"
