"""`if` on tensor values → `torch.cond` (and `torch.where` for two elementwise expressions).

Three shapes are rewritten, each replacing only the statement's lines:
- both branches return: `return torch.cond(pred, true_fn, false_fn, (ops,))`;
- `if c: ... return a` at the top of the function, then the rest returns: the rest becomes
  the false branch;
- branches that assign (an `if` without `else` included): `a, b = torch.cond(...)` for the
  names used afterwards, a branch not assigning one passes it through as a clone.
Operands are the parameters and earlier locals the branches read; outputs that could alias an
operand are cloned (torch.cond refuses aliasing).  Anything else is refused with the reason.
"""

from __future__ import annotations

import ast
import copy
import io
import tokenize
from dataclasses import dataclass

from ..document import Document
from . import scan
from .edits import Edit, indent_of, reindent, unique_name
from .model import Fix, refused
from .parsed import enclosing

TITLE = "Rewrite as torch.cond"
Func = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass
class Site:
    source_lines: list[str]
    func: Func
    node: ast.If
    end: int  # 0-based exclusive last line the rewrite replaces
    true_body: list[ast.stmt]
    false_body: list[ast.stmt]
    returns: bool  # the result is returned (else assigned)
    in_loop: bool


def cond_fixes(doc: Document, line: int, code: str) -> list[Fix]:
    """Fixes for a data-dependent `if` whose condition is on 0-based `line`."""
    tree = doc.tree
    hits = [
        n
        for n in enclosing(tree, line + 1, ast.If)
        if isinstance(n, ast.If) and n.test.lineno <= line + 1 <= (n.test.end_lineno or n.test.lineno)
    ]
    loops = [
        n
        for n in enclosing(tree, line + 1, ast.While)
        if isinstance(n, ast.While) and n.test.lineno <= line + 1 <= (n.test.end_lineno or n.test.lineno)
    ]
    if not hits:
        if loops:
            return [refused(TITLE, code, "cond", "a `while` loop on tensor values has no torch.cond form")]
        return []
    node = hits[-1]
    funcs = [f for f in enclosing(tree, line + 1, ast.FunctionDef) if isinstance(f, ast.FunctionDef)]
    if not funcs:
        return []
    site_or_why = _site(doc, funcs[-1], node)
    if isinstance(site_or_why, str):
        return [refused(TITLE, code, "cond", site_or_why)]
    fixes = [_cond(site_or_why, code, doc)]
    where = _where(site_or_why, code, tree)
    return fixes + ([where] if where else [])


def _site(doc: Document, func: Func, node: ast.If) -> Site | str:
    up = doc.parents
    chain: list[ast.AST] = []
    cur: ast.AST | None = node
    while cur is not None and cur is not func:
        chain.append(cur)
        cur = up.get(cur)
    parent = up.get(node)
    if isinstance(parent, ast.If) and parent.orelse == [node] and node.lineno == parent.orelse[0].lineno:
        if doc.text.splitlines()[node.lineno - 1].lstrip().startswith("elif"):
            return "an `elif`: rewrite the first `if` of the chain (its else branch holds this one)"
    in_loop = any(isinstance(n, (ast.For, ast.While, ast.AsyncFor)) for n in chain[1:])
    lines = doc.text.splitlines(keepends=True)
    body, orelse = node.body, node.orelse
    ret_t, ret_f = scan.always_returns(body), scan.always_returns(orelse)
    any_ret = scan.has(body + orelse, (ast.Return,))
    end = node.end_lineno or node.lineno
    if in_loop and (any_ret or scan.has(body + orelse, (ast.Break, ast.Continue))):
        return "`return`/`break`/`continue` inside a loop cannot leave a torch.cond branch"
    if ret_t and ret_f:
        return Site(lines, func, node, end, body, orelse, True, in_loop)
    if ret_t and not orelse and node in func.body:
        rest = func.body[func.body.index(node) + 1 :]
        if scan.always_returns(rest):
            return Site(lines, func, node, rest[-1].end_lineno or end, body, rest, True, in_loop)
        return "the `if` returns but the code after it does not always return"
    if any_ret:
        return "only one branch returns; the other falls through to code a branch function cannot hold"
    return Site(lines, func, node, end, body, orelse, False, in_loop)


def _cond(site: Site, code: str, doc: Document) -> Fix:
    func, node = site.func, site.node
    before = scan.defined_before(func, node.lineno) - {"self", "cls"}
    why = scan.side_effect(site.true_body, before) or scan.side_effect(site.false_body, before)
    if why:
        return refused(TITLE, code, "cond", f"a branch cannot be a torch.cond branch: {why}")
    outputs: list[str] = []
    if not site.returns:
        live = scan.used_after(func, site.end)
        assigned = scan.stores(site.true_body) + scan.stores(site.false_body)
        loop_live = set(scan.loads(func.body)) if site.in_loop else set()
        outputs = [n for n in dict.fromkeys(assigned) if n in live or n in loop_live]
        if not outputs:
            return refused(TITLE, code, "cond", "the branches assign nothing that is used afterwards")
        for name in outputs:
            both = name in scan.stores(site.true_body) and name in scan.stores(site.false_body)
            if not both and name not in before:
                why = f"`{name}` is assigned in one branch only and undefined before the `if`"
                return refused(TITLE, code, "cond", why)
    read = scan.loads(site.true_body) + scan.loads(site.false_body) + outputs
    operands = [n for n in dict.fromkeys([*scan.params(func), *read]) if n in before and n in read]
    ind = indent_of(site.source_lines[node.lineno - 1])
    taken = set(doc.names)
    t_name, f_name = unique_name(taken, "true_fn"), unique_name(taken, "false_fn")
    sig = ", ".join(operands)
    text = [f"{ind}def {t_name}({sig}):\n"]
    text += _branch(site, site.true_body, ind + "    ", operands, outputs)
    text += [f"{ind}def {f_name}({sig}):\n"]
    text += _branch(site, site.false_body, ind + "    ", operands, outputs)
    ops = f"({sig},)" if len(operands) == 1 else f"({sig})"
    call = f"torch.cond({_pred(node)}, {t_name}, {f_name}, {ops})"
    lhs = "return " if site.returns else f"{', '.join(outputs)} = "
    text.append(f"{ind}{lhs}{call}{_comment(site.source_lines[node.lineno - 1])}\n")
    edits = [Edit(node.lineno - 1, site.end, "".join(text)), *_torch_import(doc.tree)]
    return Fix(TITLE, code, "cond", edits, branch_spec(site))


def branch_spec(site: Site) -> dict[str, object]:
    """How the worker tells the branches apart: a line only one of them runs (worker/job/verify.py)."""
    first = site.true_body[0].lineno
    if first != site.node.lineno:
        return {"compare": "original", "branch_line": first, "branch_polarity": True}
    if site.false_body and site.false_body[0].lineno != site.node.lineno:
        return {"compare": "original", "branch_line": site.false_body[0].lineno, "branch_polarity": False}
    return {"compare": "original"}


def _comment(line: str) -> str:
    """The `if` line's trailing comment, kept on the torch.cond line."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(line).readline))
    except (tokenize.TokenError, SyntaxError):
        return ""
    return next((f"  {t.string}" for t in tokens if t.type == tokenize.COMMENT), "")


def _pred(node: ast.If) -> str:
    return ast.unparse(node.test)


def _branch(site: Site, body: list[ast.stmt], ind: str, operands: list[str], outputs: list[str]) -> list[str]:
    """The branch function's body: the branch's own lines, then what it returns."""
    local_aliases = _alias_locals(body)
    out: list[str] = []
    if body:
        out = _copy(site.source_lines, body, ind, set(operands) | local_aliases)
    if not site.returns:
        assigned = scan.stores(body)
        values = [f"{n}.clone()" if n not in assigned or n in local_aliases else n for n in outputs]
        out.append(f"{ind}return {values[0] if len(values) == 1 else '(' + ', '.join(values) + ')'}\n")
    return out


def _alias_locals(body: list[ast.stmt]) -> set[str]:
    return {
        t.id
        for s in scan.walk_local(body)
        if isinstance(s, ast.Assign) and scan.is_alias(s.value)
        for t in s.targets
        if isinstance(t, ast.Name)
    }


def _copy(lines: list[str], body: list[ast.stmt], ind: str, aliases: set[str]) -> list[str]:
    """The statements' source lines re-indented; returns that may alias an operand get `.clone()`."""
    first, last = body[0].lineno - 1, body[-1].end_lineno or body[-1].lineno
    own_line = lines[first][: body[0].col_offset].strip() == ""
    rets = [r for r in scan.walk_local(body) if isinstance(r, ast.Return) and _needs_clone(r.value, aliases)]
    if not own_line or any(lines[r.lineno - 1][: r.col_offset].strip() for r in rets):
        # `if c: return a` on one line: rebuild the statements from (a copy of) the syntax tree.
        body = copy.deepcopy(body)
        for r in scan.walk_local(body):
            if isinstance(r, ast.Return) and _needs_clone(r.value, aliases):
                r.value = _clone(r.value)
        return [f"{ind}{ln}\n" for s in body for ln in ast.unparse(s).splitlines()]
    block = list(lines[first:last])
    for r in sorted(rets, key=lambda r: -r.lineno):
        a, b = r.lineno - 1 - first, (r.end_lineno or r.lineno) - first
        block[a:b] = [f"{indent_of(block[a])}return {ast.unparse(_clone(r.value))}\n"]
    if block and not block[-1].endswith("\n"):
        block[-1] += "\n"
    return reindent(block, indent_of(lines[first]), ind)


def _needs_clone(value: ast.expr | None, aliases: set[str]) -> bool:
    if value is None:
        return False
    if isinstance(value, ast.Tuple):
        return any(_needs_clone(e, aliases) for e in value.elts)
    root = value
    while isinstance(root, (ast.Subscript, ast.Attribute, ast.Call)):
        root = root.value if not isinstance(root, ast.Call) else root.func
    return scan.is_alias(value) and isinstance(root, ast.Name) and root.id in aliases


def _clone(value: ast.expr | None) -> ast.expr:
    assert value is not None
    if isinstance(value, ast.Tuple):
        return ast.Tuple([_clone(e) for e in value.elts], ast.Load())
    return ast.Call(ast.Attribute(value, "clone", ast.Load()), [], [])


def _where(site: Site, code: str, tree: ast.Module) -> Fix | None:
    """`torch.where(pred, a, b)` when each branch is one elementwise expression."""
    t, f, node = site.true_body, site.false_body, site.node
    ind = indent_of(site.source_lines[node.lineno - 1])
    pred = _pred(node)
    text = None
    if site.returns and len(t) == 1 and len(f) == 1:
        a, b = t[0], f[0]
        if isinstance(a, ast.Return) and isinstance(b, ast.Return) and a.value and b.value:
            if scan.elementwise(a.value) and scan.elementwise(b.value):
                text = f"{ind}return torch.where({pred}, {ast.unparse(a.value)}, {ast.unparse(b.value)})\n"
    elif not site.returns and len(t) == 1 and len(f) <= 1:
        c, e = t[0], (f[0] if f else None)
        if isinstance(c, ast.Assign) and len(c.targets) == 1 and isinstance(c.targets[0], ast.Name):
            name = c.targets[0].id
            defined = name in scan.defined_before(site.func, node.lineno)
            other: ast.expr | None = ast.Name(name, ast.Load()) if e is None and defined else None
            if isinstance(e, ast.Assign) and [ast.unparse(x) for x in e.targets] == [name]:
                other = e.value
            if other is not None and scan.elementwise(c.value) and scan.elementwise(other):
                text = f"{ind}{name} = torch.where({pred}, {ast.unparse(c.value)}, {ast.unparse(other)})\n"
    if text is None:
        return None
    edits = [Edit(node.lineno - 1, site.end, text), *_torch_import(tree)]
    return Fix("Rewrite as torch.where", code, "where", edits, branch_spec(site))


def _torch_import(tree: ast.Module) -> list[Edit]:
    for stmt in tree.body:
        if isinstance(stmt, ast.Import) and any(a.name == "torch" and a.asname is None for a in stmt.names):
            return []
    return [Edit(0, 0, "import torch\n")]
